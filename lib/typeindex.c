/* Lazy per-module index of type and variable names.  */
#include <config.h>
#include "internal.h"
