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

/* A fixture loaded as a target, with its own shell: targets are kept, as
   loading one costs far more than running an input.  */
struct fixture {
	char *name;
	struct shell sh;
	unsigned char *file;
	size_t file_size;
	struct segment segs[8];
	size_t nsegs;
	uint64_t data_start, text_start, text_end;
	const char **globals;
};

static struct {
	struct fixture fixtures[4];
	size_t nfixtures;
	struct fixture *cur;
	/* the input */
	const uint8_t *mem;
	size_t len;
} fz;

static void die(const char *what, struct sg_error *err)
{
	fprintf(stderr, "fuzz harness: %s: %s\n", what, err ? sg_error_message(err) : "failed");
	abort();
}

static void new_shell(struct shell *sh)
{
	/* What reaches outside the process (cd moves the fuzzer's own
	   working folder), and detach, which would leave the harness
	   without its target, as continue and kill would a live one
	   (continue would wait for it).  */
	static const char *const outside[] = { "shell", "source", "plugin load", "attach",
					       "detach", "cd", "continue", "kill" };
	static const struct sg_plugin_info *const plugins[] = {
		&sg_fuzz_plugin_cfi, &sg_fuzz_plugin_fp,
		&sg_fuzz_plugin_libstdcxx, &sg_fuzz_plugin_libcxx,
	};
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
}

static struct sg_error *fz_read(void *arg, uint64_t address, void *buf, size_t size)
{
	unsigned char *out = buf;
	for (size_t i = 0; i < size; i++) {
		uint64_t a = address + i;
		const struct segment *s = NULL;
		for (size_t k = 0; k < fz.cur->nsegs && !s; k++)
			if (a >= fz.cur->segs[k].start && a < fz.cur->segs[k].end)
				s = &fz.cur->segs[k];
		if (s)
			out[i] = s->bytes[a - s->start];
		else if (fz.len && a >= fz.cur->data_start && a - fz.cur->data_start < DATA_SPAN)
			out[i] = fz.mem[(a - fz.cur->data_start) % fz.len];
		else
			return sg_error_fault(a, 1, EIO);
	}
	return NULL;
}

/* Map the fixture and find its segments and globals.  */
static void open_fixture(struct fixture *fx, const char *path, uint64_t *bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "fuzz harness: cannot open %s (run make check first)\n", path);
		abort();
	}
	fx->file_size = st.st_size;
	fx->file = mmap(NULL, fx->file_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	elf_version(EV_CURRENT);
	Elf *elf = fx->file == MAP_FAILED ? NULL : elf_memory((char *)fx->file, fx->file_size);
	GElf_Ehdr eh;
	size_t nph;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0)
		die(path, NULL);
	*bias = eh.e_type == ET_DYN ? LOAD_BIAS : 0;
	fx->nsegs = 0;
	fx->data_start = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t start = ph.p_vaddr + *bias;
		if (ph.p_flags & PF_W) {
			if (!fx->data_start)
				fx->data_start = start;
			continue;
		}
		if (ph.p_flags & PF_X) {
			fx->text_start = start;
			fx->text_end = start + ph.p_filesz;
		}
		if (fx->nsegs < SG_ARRAY_SIZE(fx->segs) && ph.p_offset + ph.p_filesz <= fx->file_size)
			fx->segs[fx->nsegs++] = (struct segment){ start, start + ph.p_filesz,
								fx->file + ph.p_offset };
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
			fx->globals = realloc(fx->globals, (n + 2) * sizeof(*fx->globals));
			fx->globals[n++] = strdup(name);
		}
	}
	if (!fx->globals)
		fx->globals = calloc(1, sizeof(*fx->globals));
	fx->globals[n] = NULL;
	/* The strings are copies; the file's mapping stays for the segments.  */
	elf_end(elf);
}

struct shell *fz_target(const char *name, const uint8_t *mem, size_t len,
			const struct sg_regs *regs)
{
	fz.mem = mem;
	fz.len = len;
	struct fixture *fx = NULL;
	for (size_t i = 0; i < fz.nfixtures && !fx; i++)
		if (!strcmp(fz.fixtures[i].name, name))
			fx = &fz.fixtures[i];
	if (!fx) {
		if (fz.nfixtures == SG_ARRAY_SIZE(fz.fixtures))
			die("too many fixtures", NULL);
		fx = &fz.fixtures[fz.nfixtures++];
		fz.cur = fx;
		fx->name = strdup(name);
		new_shell(&fx->sh);
		char *path;
		if (asprintf(&path, "%s/%s", FUZZ_FIXTURES, name) < 0)
			abort();
		uint64_t bias;
		open_fixture(fx, path, &bias);
		struct sg_memory_module mod = { path, bias };
		struct sg_target *t;
		struct sg_error *err = sg_memory_target_create(&mod, 1, fz_read, NULL, regs, &t);
		if (err)
			die(path, err);
		free(path);
		sg_session_set_target(fx->sh.session, t);
	} else {
		fz.cur = fx;
		sg_session_memory_changed(fx->sh.session);
		struct sg_target *t = sg_session_target(fx->sh.session);
		/* "detach" may have dropped it.  */
		if (!t)
			die("the target is gone", NULL);
		struct sg_regs none = { 0 };
		t->threads[0].regs = regs ? *regs : none;
	}
	fx->sh.quit = false;
	fx->sh.source_depth = 0;
	return &fx->sh;
}

uint64_t fz_data_start(void) { return fz.cur->data_start; }

void fz_text_range(uint64_t *start, uint64_t *end)
{
	*start = fz.cur->text_start;
	*end = fz.cur->text_end;
}

const char *const *fz_globals(void) { return fz.cur->globals; }
