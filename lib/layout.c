/* Layout bindings: a plugin's declared members resolved to offsets once.  */
#include <config.h>
#include "internal.h"
#include <spyglass/layout.h>
