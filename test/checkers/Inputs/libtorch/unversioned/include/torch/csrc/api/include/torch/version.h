#pragma once
// A LibTorch whose headers say nothing of the version.
