/* spyglass: the whole public API.  Link with `pkg-config --libs spyglass`. */
#ifndef SPYGLASS_H
#define SPYGLASS_H

#include <spyglass/common.h>
#include <spyglass/error.h>
#include <spyglass/output.h>
#include <spyglass/session.h>
#include <spyglass/target.h>
#include <spyglass/core.h>
#include <spyglass/module.h>
#include <spyglass/command.h>
#include <spyglass/registry.h>
#include <spyglass/unwind.h>
#include <spyglass/dwarf.h>
#include <spyglass/type.h>
#include <spyglass/value.h>
#include <spyglass/eval.h>
#include <spyglass/lookup.h>
#include <spyglass/layout.h>
#include <spyglass/plugin.h>
#include <spyglass/profile.h>
#include <spyglass/sampler.h>

#define SG_VERSION_STRING "0.1.0"

SG_BEGIN_DECLS
/* The library's version, e.g. "0.1.0".  */
SG_PUBLIC const char *sg_version(void);
SG_END_DECLS

#endif
