/* libspyglass's only own object: everything else comes from libsgcore.  The
   version script keeps the exports to sg_*.  */
#include <config.h>
#include <spyglass/common.h>
