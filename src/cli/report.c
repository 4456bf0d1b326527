/* report.c - what the command line says of a build in words: the
 * progress line and the closing summary (see report.h). */
#include "cli/report.h"

#include <math.h>
#include <stdio.h>

void cli_duration_text(double s, char *out, size_t sz)
{
	if (s >= 3600)
		snprintf(out, sz, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
	else if (s >= 60)
		snprintf(out, sz, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(out, sz, "%.1f s", s);
}

void cli_progress_text(const ts_progress *p, char *out, size_t sz)
{
	char eta[64] = "--", audio[64], fin[64] = "";
	if (p->eta_s >= 0)
		cli_duration_text(p->eta_s, eta, sizeof eta);
	cli_duration_text(p->audio_s, audio, sizeof audio);
	if (p->finishing == 1 && p->finish_done < 1)
		snprintf(fin, sizeof fin, ", finishing 1 chapter (%d%%)",
		         (int)(p->finish_done * 100));
	else if (p->finishing == 1)
		snprintf(fin, sizeof fin, ", finishing 1 chapter (levelling again, %d%%)",
		         (int)(fmod(p->finish_done, 1) * 100));
	else if (p->finishing > 1)
		snprintf(fin, sizeof fin, ", finishing %zu chapters", p->finishing);
	snprintf(out, sz, "[%zu/%zu chapters] %s of audio made%s, ETA %s", p->chapters_done,
	         p->chapters, audio, fin, eta);
}

void cli_summary_text(const ts_build_summary *s, int rc, const char *outdir, char *out, size_t sz)
{
	char audio[64], took[64], kept[64] = "", failed[64] = "";
	const char *end = !rc                  ? ""
	                  : rc == TS_ECANCELED ? "; interrupted"
	                                       : "; the book is not finished (the error above)";
	if (s->built == 0 && s->failed == 0 && (!rc || s->kept)) {
		snprintf(out, sz, "%zu chapters up to date in %s%s", s->kept, outdir, end);
		return;
	}
	cli_duration_text(s->audio_s, audio, sizeof audio);
	cli_duration_text(s->elapsed_s, took, sizeof took);
	if (s->kept)
		snprintf(kept, sizeof kept, ", %zu up to date", s->kept);
	if (s->failed)
		snprintf(failed, sizeof failed, ", %zu failed", s->failed);
	snprintf(out, sz, "built %zu of %zu chapters (%s of audio)%s%s in %s into %s%s", s->built,
	         s->chapters, audio, kept, failed, took, outdir, end);
}
