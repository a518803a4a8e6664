/* Runtime stacks for the sampler: the stack provider's frames of a
   thread, read while it is stopped (or, --nonblocking, while it runs).  */
#include <config.h>
#include "sampler-impl.h"

struct sg_error *sg_sampler_find_provider(struct sampler *sp)
{
	struct sg_session *s = sp->s;
	for (size_t i = 0; i < s->nhandlers[SG_REGISTRY_STACK_PROVIDER]; i++) {
		const struct sg_registry_entry *e = &s->handlers[SG_REGISTRY_STACK_PROVIDER][i].e;
		const struct sg_stack_provider_ops *ops = e->ops;
		if (strcmp(e->name, sp->o->provider))
			continue;
		/* Merging needs is_eval and entry (ABI 1.1).  */
		if (sp->o->stack == SG_SAMPLE_MIXED && (e->abi_minor < 1 || !ops->is_eval))
			break;
		sp->provider = e;
		return NULL;
	}
	return sg_error_format(SG_ERROR_LOOKUP, "no stack provider \"%s\"%s is loaded",
			       sp->o->provider,
			       sp->o->stack == SG_SAMPLE_MIXED ? " that can merge stacks" : "");
}

void sg_sampler_rframes_clear(struct sthread *th)
{
	for (size_t k = 0; k < th->nrf; k++) {
		free(th->rf[k].function);
		free(th->rf[k].file);
	}
	th->nrf = 0;
}

static int add_rframe(const struct sg_runtime_frame *f, void *arg)
{
	struct sthread *th = arg;
	struct sg_sampler_rframe *rf = sg_array_push(&th->rf, &th->nrf, &th->rf_cap, sizeof(*rf));
	if (!rf)
		return SG_CB_ABORT;
	rf->function = strdup(f->function ? f->function : "??");
	rf->file = f->file ? strdup(f->file) : NULL;
	rf->line = f->line;
	rf->entry = f->entry;
	if (!rf->function || (f->file && !rf->file)) {
		free(rf->function);
		free(rf->file);
		th->nrf--;
		return SG_CB_ABORT;
	}
	return SG_CB_OK;
}

void sg_sampler_runtime_frames(struct sampler *sp, size_t i)
{
	struct sthread *th = &sp->th[i];
	sg_sampler_rframes_clear(th);
	th->runtime_found = th->runtime_error = false;
	const struct sg_stack_provider_ops *ops = sp->provider->ops;
	sg_sampler_prefetch(sp, th);
	struct sg_error *err = ops->frames(sp->s, &sp->t->threads[i], add_rframe, th,
					   sp->provider->arg);
	sg_sampler_prefetch_done(sp);
	if (err == &sg_not_found)
		return;
	th->runtime_found = true;
	if (err) {
		/* A walk that broke off keeps the frames it read; with
		   none, the sample is lost.  */
		th->runtime_error = true;
		sg_error_destroy(err);
		if (!th->nrf)
			th->runtime_found = false;
	}
}

bool sg_sampler_is_eval(struct sampler *sp, const char *function)
{
	const struct sg_stack_provider_ops *ops = sp->provider->ops;
	return function && ops->is_eval && ops->is_eval(function, sp->provider->arg);
}
