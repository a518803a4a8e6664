/* Shared helpers of the libstdc++ readers.  */
#ifndef SG_LIBSTDCXX_H
#define SG_LIBSTDCXX_H
#endif
