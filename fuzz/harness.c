/* The fuzz targets' shell and fake process (harness.h).  A fuzz target is a
   process of its own that runs one input at a time, so what it keeps
   between inputs lives in this file's statics.  */
#include <config.h>
#include "internal.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FUZZ_FIXTURES
#error "FUZZ_FIXTURES names the folder of the test fixtures"
#endif

#define DATA_SPAN (UINT64_C(16) << 20)
/* Where an ET_DYN fixture is loaded: low, so that a pointer into its data
   is three bytes the fuzzer can find.  */
#define LOAD_BIAS UINT64_C(0x10000)

extern const struct sg_plugin_info sg_fuzz_plugin_libstdcxx;
extern const struct sg_plugin_info sg_fuzz_plugin_libcxx;
extern const struct sg_plugin_info sg_fuzz_plugin_cfi;
extern const struct sg_plugin_info sg_fuzz_plugin_fp;

/* A read-only segment of the fixture, served from the file.  */
struct segment {
	uint64_t start, end;
	const unsigned char *bytes;
};

static struct {
	struct shell sh;
	bool ready;
	/* the fixture */
	char *name;
	unsigned char *file;
	size_t file_size;
	struct segment segs[8];
	size_t nsegs;
	uint64_t data_start, text_start, text_end;
	const char **globals;
	/* the input */
	const uint8_t *mem;
	size_t len;
} fz;

static void die(const char *what, struct sg_error *err)
{
	fprintf(stderr, "fuzz harness: %s: %s\n", what, err ? sg_error_message(err) : "failed");
	abort();
}

struct shell *fz_shell(void)
{
	if (fz.ready)
		return &fz.sh;
	static const char *const outside[] = { "shell", "source", "plugin load", "attach" };
	static const struct sg_plugin_info *const plugins[] = {
		&sg_fuzz_plugin_cfi, &sg_fuzz_plugin_fp,
		&sg_fuzz_plugin_libstdcxx, &sg_fuzz_plugin_libcxx,
	};
	struct shell *sh = &fz.sh;
	sh->x_format = 'x';
	sh->x_size = 4;
	sh->batch = true;
	FILE *null = fopen("/dev/null", "we");
	struct sg_error *err;
	if (!null)
		die("/dev/null", NULL);
	if ((err = sg_session_create(&sh->session)) || (err = sg_out_create(null, false, &sh->out)) ||
	    (err = shell_register_commands(sh)))
		die("the shell", err);
	for (size_t i = 0; i < SG_ARRAY_SIZE(plugins); i++)
		if ((err = sg_plugin_add_static(sh->session, plugins[i])))
			die("a plugin", err);
	for (size_t i = 0; i < SG_ARRAY_SIZE(outside); i++)
		if (!sg_command_unregister(sh->session, outside[i]))
			die(outside[i], NULL);
	fz.ready = true;
	return sh;
}

static struct sg_error *fz_read(void *arg, uint64_t address, void *buf, size_t size)
{
	unsigned char *out = buf;
	for (size_t i = 0; i < size; i++) {
		uint64_t a = address + i;
		const struct segment *s = NULL;
		for (size_t k = 0; k < fz.nsegs && !s; k++)
			if (a >= fz.segs[k].start && a < fz.segs[k].end)
				s = &fz.segs[k];
		if (s)
			out[i] = s->bytes[a - s->start];
		else if (fz.len && a >= fz.data_start && a - fz.data_start < DATA_SPAN)
			out[i] = fz.mem[(a - fz.data_start) % fz.len];
		else
			return sg_error_fault(a, 1, EIO);
	}
	return NULL;
}

/* Map the fixture and find its segments and globals.  */
static void open_fixture(const char *path, uint64_t *bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "fuzz harness: cannot open %s (run make check first)\n", path);
		abort();
	}
	fz.file_size = st.st_size;
	fz.file = mmap(NULL, fz.file_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	elf_version(EV_CURRENT);
	Elf *elf = fz.file == MAP_FAILED ? NULL : elf_memory((char *)fz.file, fz.file_size);
	GElf_Ehdr eh;
	size_t nph;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0)
		die(path, NULL);
	*bias = eh.e_type == ET_DYN ? LOAD_BIAS : 0;
	fz.nsegs = 0;
	fz.data_start = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t start = ph.p_vaddr + *bias;
		if (ph.p_flags & PF_W) {
			if (!fz.data_start)
				fz.data_start = start;
			continue;
		}
		if (ph.p_flags & PF_X) {
			fz.text_start = start;
			fz.text_end = start + ph.p_filesz;
		}
		if (fz.nsegs < SG_ARRAY_SIZE(fz.segs) && ph.p_offset + ph.p_filesz <= fz.file_size)
			fz.segs[fz.nsegs++] = (struct segment){ start, start + ph.p_filesz,
								fz.file + ph.p_offset };
	}
	size_t n = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || strncmp(name, "g_", 2))
				continue;
			fz.globals = realloc(fz.globals, (n + 2) * sizeof(*fz.globals));
			fz.globals[n++] = strdup(name);
		}
	}
	if (!fz.globals)
		fz.globals = calloc(1, sizeof(*fz.globals));
	fz.globals[n] = NULL;
	/* The strings are copies; the file's mapping stays for the segments.  */
	elf_end(elf);
}

static void close_fixture(void)
{
	for (size_t i = 0; fz.globals && fz.globals[i]; i++)
		free((char *)fz.globals[i]);
	free(fz.globals);
	fz.globals = NULL;
	if (fz.file && fz.file != MAP_FAILED)
		munmap(fz.file, fz.file_size);
	fz.file = NULL;
	free(fz.name);
	fz.name = NULL;
}

void fz_target(struct shell *sh, const char *name, const uint8_t *mem, size_t len,
	       const struct sg_regs *regs)
{
	fz.mem = mem;
	fz.len = len;
	struct sg_target *t = sg_session_target(sh->session);
	if (!t || !fz.name || strcmp(fz.name, name)) {
		sg_session_set_target(sh->session, NULL);
		close_fixture();
		char *path;
		if (asprintf(&path, "%s/%s", FUZZ_FIXTURES, name) < 0)
			abort();
		uint64_t bias;
		open_fixture(path, &bias);
		struct sg_memory_module mod = { path, bias };
		struct sg_error *err = sg_memory_target_create(&mod, 1, fz_read, NULL, regs, &t);
		if (err)
			die(path, err);
		free(path);
		fz.name = strdup(name);
		sg_session_set_target(sh->session, t);
	} else {
		sg_session_memory_changed(sh->session);
		struct sg_regs none = { 0 };
		t->threads[0].regs = regs ? *regs : none;
	}
	sh->quit = false;
	sh->source_depth = 0;
}

uint64_t fz_data_start(void) { return fz.data_start; }

void fz_text_range(uint64_t *start, uint64_t *end)
{
	*start = fz.text_start;
	*end = fz.text_end;
}

const char *const *fz_globals(void) { return fz.globals; }
