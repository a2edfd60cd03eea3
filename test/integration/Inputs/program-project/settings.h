// The training's settings, in a file of their own.
#pragma once

double learningRate();
int defaultSteps();
