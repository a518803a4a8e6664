/* Layout bindings (placeholder, filled in by the layout work).  */
#ifndef SPYGLASS_LAYOUT_H
#define SPYGLASS_LAYOUT_H
#include <spyglass/common.h>
#endif
