/* libstdc++ readers: tree.  */
#include <config.h>
#include "libstdcxx.h"
