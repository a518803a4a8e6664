/* Typed readers for LLVM's libc++ (placeholder).  */
#include <config.h>
#include <spyglass/plugin.h>

static struct sg_error *libcxx_init(struct sg_session *s, void **state)
{
	(void)s;
	*state = NULL;
	return NULL;
}

SG_PLUGIN_DEFINE("libcxx", "0.1", "Typed readers for LLVM libc++ containers", libcxx_init, NULL);
