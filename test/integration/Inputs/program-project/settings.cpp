#include "settings.h"

double learningRate() { return 0.05; }

int defaultSteps() { return 20; }
