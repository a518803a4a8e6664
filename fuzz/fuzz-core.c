/* The core reader (lib/elfcore.c) and the core target (lib/target-core.c)
   over any file: the input is the core.  It is opened as a target, then
   every thread's registers, the memory at the stack pointers, the
   program counters and the start and end of each segment, what the core
   recorded, the modules with their sections (info files), the threads'
   XSAVE areas (info all-registers) and the dynamic linker's list are
   read, and the target is destroyed.  The
   files the core names are looked for in the test fixtures' folder
   only (as the solib search path, under a sysroot that does not exist),
   so that a run does not depend on the machine's files.  */
#include <config.h>
#include "elfcore.h"
#include <spyglass/core.h>
#include <spyglass/module.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef FUZZ_FIXTURES
#error "FUZZ_FIXTURES names the folder of the test fixtures"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_at(struct sg_target *t, uint64_t address, size_t size)
{
	unsigned char buf[256];
	if (size > sizeof(buf))
		size = sizeof(buf);
	sg_error_destroy(sg_target_read(t, address, buf, size));
}

static int visit_section(const struct sg_section *sec, void *arg)
{
	size_t *n = arg;
	*n += strlen(sec->name) + (sec->end > sec->start);
	return SG_CB_OK;
}

static int visit_module(struct sg_module *mod, void *arg)
{
	struct sg_module_info info;
	sg_module_info(mod, &info);
	/* info files: the module's sections and entry point.  */
	uint64_t entry;
	sg_module_entry(mod, &entry);
	sg_error_destroy(sg_module_sections(mod, visit_section, arg));
	/* Touch what the strings hold.  */
	size_t *n = arg;
	*n += strlen(info.name) + (info.build_id ? strlen(info.build_id) : 0) +
	      (info.file ? strlen(info.file) : 0);
	return SG_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("core", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return 0;
		}
		done += (size_t)n;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct sg_target *t = NULL;
	struct sg_error *err = sg_core_target_open(path, NULL, FUZZ_FIXTURES "/no-sysroot",
						   FUZZ_FIXTURES, &t);
	close(fd);	/* the target opened its own */
	if (err) {
		/* Every error has a message.  */
		if (!sg_error_message(err)[0])
			abort();
		sg_error_destroy(err);
		return 0;
	}

	struct sg_core_info ci;
	if (!sg_core_info(t, &ci))
		abort();
	size_t touched = strlen(ci.fname) + strlen(ci.psargs) + strlen(ci.warnings) + strlen(ci.path);

	for (size_t i = 0; i < sg_target_thread_count(t); i++) {
		const struct sg_regs *r = sg_thread_regs(sg_target_thread(t, i));
		read_at(t, r->r[SG_REG_RSP], 64);
		read_at(t, r->r[SG_REG_RIP], 16);
		sg_target_module_at(t, r->r[SG_REG_RIP]);
	}
	/* The segments as "info proc mappings" has them: the first and last
	   bytes of each, and across its end.  */
	const char *maps = t->maps ? t->maps : "";
	for (const char *line = maps; *line;) {
		unsigned long long start, end;
		if (sscanf(line, "%llx-%llx", &start, &end) == 2) {
			read_at(t, start, 32);
			read_at(t, end - 1, 1);
			read_at(t, end - 8, 16);
		}
		const char *nl = strchr(line, '\n');
		line = nl ? nl + 1 : line + strlen(line);
	}
	char *s = NULL;
	const struct sg_regs *r0 = sg_thread_regs(sg_target_thread(t, 0));
	err = sg_target_read_string(t, r0->r[SG_REG_RDI], 64, &s, NULL);
	if (err)
		sg_error_destroy(err);
	else
		free(s);

	/* info all-registers: each thread's XSAVE area (NT_X86_XSTATE, or
	   NT_FPREGSET).  */
	for (size_t i = 0; i < sg_target_thread_count(t) && i < 8; i++) {
		struct sg_xregs x;
		sg_error_destroy(sg_thread_xregs(t, sg_target_thread(t, i), &x));
	}
	sg_core_sections(t, visit_section, &touched);
	sg_error_destroy(sg_target_modules(t, visit_module, &touched));
	sg_target_exe_module(t);
	struct sg_module *linked[64];
	sg_target_link_map_modules(t, linked, 64);
	if (touched == (size_t)-1)
		abort();
	sg_target_destroy(t);
	return 0;
}
