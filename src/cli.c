/*
 * cli.c - parse mha-tui's command line into struct cli. Every error names
 * the flag, the value and what is allowed, in one line; nothing is printed
 * here and nothing exits.
 */
#include "cli.h"
#include "train.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_usage[] =
	"usage: mha-tui [options]\n"
	"\n"
	"  mha-tui                          resume where you left off, or open the lesson menu\n"
	"  mha-tui --lesson ID              open lesson ID (number or name) where you left it\n"
	"  mha-tui --tokens N --d-model D --heads H [--kv-heads G] [--d-k K]\n"
	"          [--causal] [--top-k K] [--no-scale] [--seed S] [--pad LIST] [--window W]\n"
	"          [--text \"WORDS\"] [--bias] [--pos P] [--kv-tokens M] [--layers L]\n"
	"                                   open the workbench with that configuration\n"
	"  mha-tui --load FILE              open a saved session\n"
	"  mha-tui --dump json [configuration flags | --load FILE]\n"
	"                                   print the whole computation as JSON and exit\n"
	"  mha-tui --export py|svg|txt FILE [configuration flags | --load FILE] [--stage S]\n"
	"                                   write a numpy script that checks every number,\n"
	"                                   or the heads' heatmaps of stage S (weights or\n"
	"                                   scores) as SVG; FILE - is standard output\n"
	"  mha-tui --check-lessons [DIR]    validate lesson files\n"
	"  mha-tui --dump json --grad [configuration flags]\n"
	"                                   the dump with the gradients of L = 1/2 sum(Y^2)\n"
	"  mha-tui --train TASK [--layers 1|2] [--heads H] [--d-model D] [--steps N]\n"
	"          [--seed S] [--save FILE]  train a small attention model (no terminal)\n"
	"  mha-tui --ablate TASK [--d-model D] [--seeds S] [--steps N]\n"
	"                                   train h = 1, 2, 4, ... d_model heads (Table 3 row A)\n"
	"                                   tasks: previous first duplicate multi induction\n"
	"  mha-tui --train lm [--corpus DIR] [--steps N] [--seed S] [--save FILE]\n"
	"  mha-tui --eval [--model FILE] [--corpus DIR]\n"
	"                                   the language model: train it on WordNet's glosses;\n"
	"                                   its held-out loss beside baselines, and its heads\n"
	"  mha-tui --dump json --text \"WORDS\" --model [FILE] [--generate N]\n"
	"                                   a sentence through it: tokens, layers, top-5 next\n"

	"  mha-tui --circuits MODEL [--json] [--position P]  circuits (doc/CIRCUITS.md)\n"
	"  mha-tui --help | --version\n"
	"\n"
	"configuration (defaults: 6 tokens, d_model 16, 4 heads):\n"
	"  --tokens N       tokens n, 1..64\n"
	"  --d-model D      model width d_model, 1..1024\n"
	"  --heads H        query heads h, 1..64\n"
	"  --kv-heads G     key/value heads g, a divisor of h (default h; 1 = MQA)\n"
	"  --d-k K          head size d_k = d_v, 1..1024 (default d_model / h)\n"
	"  --causal         mask future tokens (query i sees keys j <= i)\n"
	"  --top-k K        keep each query's K largest scores, 0..n (0 = off)\n"
	"  --no-scale       leave out the 1/sqrt(d_k) scale\n"
	"  --seed S         random inputs from seed S, 1..2^64-1; the default, 0, wires\n"
	"                   heads 0-3 to the previous token, same word, first, next\n"
	"  --pad LIST       padding tokens, positions from 0 (\"4,5\"): no query sees them\n"
	"  --text \"WORDS\"   your own sentence: one token a word (n = the number of\n"
	"                   words); the workbench puts it through the language model\n"
	"  --bias           add biases b^Q, b^K, b^V, b^O (seeded; off as in the paper)\n"
	"  --window W       sliding window: query i sees keys i-W+1..i with --causal,\n"
	"                   else i-W+1..i+W-1; 0 = off\n"
	"  --pos P          none|learned|sinusoidal|rope (even d_k); --pos-offset O\n"
	"  --kv-tokens M    cross-attention: Q from X, K and V from M source tokens\n"
	"                   (1..64), or --kv-text \"WORDS\" (the workbench: key X)\n"
	"  --layers L       1..4 on the residual stream (--train: 1..2)\n"
	"\n"
	"other options:\n"
	"  --lessons-dir DIR  where lesson files are (else $MHA_TUI_LESSONS, the source\n"
	"                     tree, the installed data dir)\n"
	"  --no-color         monochrome screen (also when NO_COLOR is set)\n"
	"  --no-mouse         leave the mouse to the terminal (to select text)\n"
	"  --model [FILE]     the language model (default the shipped; $MHA_TUI_MODEL; W)\n"
	"  --corpus DIR       WordNet 3.0's data files (default /usr/share/wordnet)\n"
	"\n"
	"exit status: 0 success, 1 failure (bad lesson or session file), 2 usage error\n";

static int usage_error(char *msg, size_t len, const char *fmt, const char *a, const char *b)
{
	snprintf(msg, len, fmt, a, b);
	return 2;
}

/* A whole number in [lo, hi], nothing else. */
static int parse_int(const char *flag, const char *text, long lo, long hi, int *out,
                     char *msg, size_t len)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || *end != '\0' || !(text[0] == '-' || text[0] == '+' || (text[0] >= '0' && text[0] <= '9'))) {
		snprintf(msg, len, "%s '%.40s' is not a whole number: allowed %ld..%ld", flag, text, lo, hi);
		return 2;
	}
	if (errno == ERANGE || v < lo || v > hi) {
		snprintf(msg, len, "%s %.40s is out of range: allowed %ld..%ld", flag, text, lo, hi);
		return 2;
	}
	*out = (int)v;
	return 0;
}

static int parse_seed(const char *text, uint64_t *out, char *msg, size_t len)
{
	char *end = NULL;
	errno = 0;
	/* a minus sign before digits is a whole number, and below the range */
	bool negative = text[0] == '-' && text[1] >= '0' && text[1] <= '9' && strspn(text + 1, "0123456789") == strlen(text + 1);
	if (negative || (text[0] >= '0' && text[0] <= '9' && (*out = strtoull(text, &end, 10), *end == '\0') &&
	                 errno == ERANGE)) {
		snprintf(msg, len, "--seed %.40s is out of range: allowed 0..%" PRIu64, text, UINT64_MAX);
		return 2;
	}
	if (text[0] < '0' || text[0] > '9' || *end != '\0') {
		snprintf(msg, len, "--seed '%.40s' is not a whole number: allowed 0..%" PRIu64,
		         text, UINT64_MAX);
		return 2;
	}
	return 0;
}

/* A flag naming a file: an empty name is no file (the save would fail
 * after the work, or the load say "No such file"). */
static int file_name(const char *flag, const char *val, char *msg, size_t len)
{
	if (val[0])
		return 0;
	snprintf(msg, len, "%s needs a file name (it was given an empty one)", flag);
	return 2;
}

/* What the run does besides the workbench (--dump, --export,
 * --check-lessons, --train, --ablate, --eval, --circuits): one of them. A
 * second is refused whichever came first (before, the last --dump or
 * --check-lessons won silently, and a second --export was said to clash
 * with --dump). */
static int set_mode(struct cli *out, enum cli_mode mode, const char *flag, const char **first,
                    char *msg, size_t len)
{
	if (*first) {
		snprintf(msg, len, "%s cannot be combined with %s: give one of --dump, --export, --check-lessons, "
		         "--train, --ablate, --eval, --circuits", flag, *first);
		return 2;
	}
	*first = flag;
	out->mode = mode;
	return 0;
}

/* --pos none|learned|sinusoidal|rope */
static int parse_pos(const char *text, enum mha_pos *out, char *msg, size_t len)
{
	int p = mha_pos_by_name(text);
	if (p < 0) {
		snprintf(msg, len, "--pos '%.40s' is not a kind of position: allowed none, learned, "
		         "sinusoidal, rope", text);
		return 2;
	}
	*out = (enum mha_pos)p;
	return 0;
}

static int parse_train_flag(const char *name, const char *val, struct cli *out,
                            char *msg, size_t len);
static int check_train_flags(struct cli *out, char *msg, size_t len);
static int check_lm_flags(const struct cli *out, char *msg, size_t len);
static int parse_circuits_flag(const char *name, const char *val, struct cli *out,
                               char *msg, size_t len);

struct flag {
	const char *name;
	bool takes_value; /* the next argument (or =VALUE) is its value */
	bool config;      /* part of the layer's configuration */
};

static const struct flag flags[] = {
	{ "--tokens", true, true }, { "--d-model", true, true }, { "--heads", true, true },
	{ "--kv-heads", true, true }, { "--d-k", true, true }, { "--top-k", true, true },
	{ "--seed", true, true }, { "--causal", false, true }, { "--no-scale", false, true },
	{ "--load", true, false }, { "--lesson", true, false }, { "--lessons-dir", true, false },
	{ "--dump", true, false }, { "--check-lessons", false, false }, { "--no-color", false, false },
	{ "--no-mouse", false, false },
	{ "--pad", true, true }, { "--window", true, true }, { "--text", true, true },
	{ "--bias", false, true }, { "--export", true, false }, { "--stage", true, false },
	{ "--help", false, false }, { "--version", false, false },
	{ "--grad", false, false }, { "--train", true, false }, { "--ablate", true, false },
	{ "--layers", true, false }, { "--steps", true, false }, { "--save", true, false },
	{ "--seeds", true, false },
	{ "--pos", true, true }, { "--pos-offset", true, true }, { "--kv-tokens", true, true },
	{ "--kv-text", true, true },
	{ "--model", false, false }, { "--corpus", true, false }, { "--eval", false, false },
	{ "--vocab", true, false }, { "--generate", true, false },
	{ "--circuits", true, false }, { "--json", false, false }, { "--position", true, false },
};

static const struct flag *flag_find(const char *name, size_t name_len)
{
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (strlen(flags[i].name) == name_len && strncmp(flags[i].name, name, name_len) == 0)
			return &flags[i];
	return NULL;
}

/* Configuration as typed, before defaults fill the gaps. -1: not given. */
struct given {
	int n, d, h, g, dk, top_k;
	int pad_max; /* the largest --pad position, or -1 */
	int m;       /* --kv-tokens */
};

/* --pad LIST: comma-separated token positions 0..MHA_MAX_TOKENS-1. */
static int parse_pad(const char *text, uint64_t *pad, int *pad_max, char *msg, size_t len)
{
	const char *p = text;
	do {
		char item[24];
		size_t k = strcspn(p, ",");
		snprintf(item, sizeof item, "%.*s", (int)(k < sizeof item - 1 ? k : sizeof item - 1), p);
		int t;
		if (k == 0 || k >= sizeof item - 1 ||
		    parse_int("--pad", item, 0, MHA_MAX_TOKENS - 1, &t, msg, len) != 0) {
			snprintf(msg, len, "--pad '%.40s' is not a list of token positions: "
			         "write them from 0, comma-separated, as --pad 4,5", text);
			return 2;
		}
		*pad |= (uint64_t)1 << t;
		if (t > *pad_max)
			*pad_max = t;
		p += k;
	} while (*p++ == ',');
	return 0;
}

static int finish_config(const struct given *gv, struct cli *out, char *msg, size_t len)
{
	struct mha_config *c = &out->cfg;
	if (out->text) {
		char labels[MHA_MAX_TOKENS][MHA_LABEL_MAX], why[MHA_MSG_MAX];
		int words = mha_text_split(out->text, labels, MHA_MAX_TOKENS, why, sizeof why);
		if (words < 0) {
			snprintf(msg, len, "--text: %s", why);
			return 2;
		}
		if (gv->n >= 0 && gv->n != words) {
			snprintf(msg, len, "--tokens %d disagrees with --text's %d words: "
			         "leave --tokens out (one token a word)", gv->n, words);
			return 2;
		}
		c->n = words;
	}
	if (out->kv_text) {
		char labels[MHA_MAX_KV_TOKENS][MHA_LABEL_MAX], why[MHA_MSG_MAX];
		int words = mha_text_split(out->kv_text, labels, MHA_MAX_KV_TOKENS, why, sizeof why);
		if (words < 0) {
			snprintf(msg, len, "--kv-text: %s", why);
			return 2;
		}
		if (gv->m >= 0 && gv->m != words) {
			snprintf(msg, len, "--kv-tokens %d disagrees with --kv-text's %d words: "
			         "leave --kv-tokens out (one token a word)", gv->m, words);
			return 2;
		}
		c->m = words;
	}
	if (gv->m >= 0) c->m = gv->m;
	if (gv->n >= 0) c->n = gv->n;
	if (gv->d >= 0) c->d = gv->d;
	if (gv->h >= 0) c->h = gv->h;
	c->g = gv->g >= 0 ? gv->g : c->h;
	if (gv->top_k >= 0) c->top_k = gv->top_k;
	if (gv->pad_max >= mha_keys(c)) {
		if (c->m > 0)
			snprintf(msg, len, "--pad %d is not a source token: with cross-attention the padding is "
			         "the source's, positions 0 to %d (--kv-tokens - 1)", gv->pad_max, c->m - 1);
		else
			snprintf(msg, len, "--pad %d is not a token: positions go from 0 to %d (n - 1)",
			         gv->pad_max, c->n - 1);
		return 2;
	}
	if (gv->dk >= 0) {
		c->dk = gv->dk;
	} else if (c->d % c->h != 0) {
		snprintf(msg, len, "--d-model %d is not divisible by --heads %d: "
		         "choose heads that divide it, or set the head size with --d-k K", c->d, c->h);
		return 2;
	} else {
		c->dk = c->d / c->h;
	}
	char why[MHA_MSG_MAX];
	if (mha_config_check(c, why, sizeof why) != MHA_OK) {
		snprintf(msg, len, "invalid configuration: --%s", why);
		return 2;
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *out, char *msg, size_t len)
{
	memset(out, 0, sizeof *out);
	out->mode = CLI_TUI;
	out->cfg = mha_config_default();
	out->circuits.position = -1;
	struct given gv = { -1, -1, -1, -1, -1, -1, -1, -1 };
	bool want_help = false, want_version = false;
	const char *mode_flag = NULL; /* the flag that set out->mode */

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
			return usage_error(msg, len, "unexpected argument '%.60s'%s: see mha-tui --help", arg, "");
		const char *eq = strchr(arg, '=');
		size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
		const struct flag *f = flag_find(arg, name_len);
		if (!f)
			return usage_error(msg, len, "unknown option '%.60s'%s: see mha-tui --help", arg, "");
		const char *val = NULL;
		if (f->takes_value) {
			if (eq) {
				val = eq + 1;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				return usage_error(msg, len, "%s needs a value%s: see mha-tui --help", f->name, "");
			}
		} else if (eq && strcmp(f->name, "--check-lessons") != 0 && strcmp(f->name, "--model") != 0) {
			return usage_error(msg, len, "%s takes no value (got '%.40s')", f->name, eq + 1);
		}

		int rc = 0;
		const char *name = f->name;
		if (!strcmp(name, "--tokens"))        rc = parse_int(name, val, 1, MHA_MAX_TOKENS, &gv.n, msg, len);
		else if (!strcmp(name, "--d-model"))  rc = parse_int(name, val, 1, MHA_MAX_D_MODEL, &gv.d, msg, len);
		else if (!strcmp(name, "--heads"))    rc = parse_int(name, val, 1, MHA_MAX_HEADS, &gv.h, msg, len);
		else if (!strcmp(name, "--kv-heads")) rc = parse_int(name, val, 1, MHA_MAX_HEADS, &gv.g, msg, len);
		else if (!strcmp(name, "--d-k"))      rc = parse_int(name, val, 1, MHA_MAX_DK, &gv.dk, msg, len);
		else if (!strcmp(name, "--top-k"))    rc = parse_int(name, val, 0, MHA_MAX_TOKENS, &gv.top_k, msg, len);
		else if (!strcmp(name, "--seed"))     rc = parse_seed(val, &out->cfg.seed, msg, len);
		else if (!strcmp(name, "--causal"))   out->cfg.causal = true;
		else if (!strcmp(name, "--text"))     out->text = val;
		else if (!strcmp(name, "--bias"))     out->cfg.bias = true;
		else if (!strcmp(name, "--pad"))      rc = parse_pad(val, &out->cfg.pad, &gv.pad_max, msg, len);
		else if (!strcmp(name, "--window"))   rc = parse_int(name, val, 0, MHA_MAX_TOKENS, &out->cfg.window, msg, len);
		else if (!strcmp(name, "--no-scale")) out->cfg.scale = false;
		else if (!strcmp(name, "--pos"))      rc = parse_pos(val, &out->cfg.pos, msg, len);
		else if (!strcmp(name, "--pos-offset")) rc = parse_int(name, val, 0, MHA_MAX_POS_OFFSET, &out->cfg.pos_offset, msg, len);
		else if (!strcmp(name, "--kv-tokens")) rc = parse_int(name, val, 0, MHA_MAX_KV_TOKENS, &gv.m, msg, len);
		else if (!strcmp(name, "--kv-text"))  out->kv_text = val;
		else if (!strcmp(name, "--load"))     rc = file_name(name, val, msg, len), out->load = val;
		else if (!strcmp(name, "--lesson"))   out->lesson = val;
		else if (!strcmp(name, "--lessons-dir")) out->lessons_dir = val;
		else if (!strcmp(name, "--no-color")) out->no_color = true;
		else if (!strcmp(name, "--no-mouse")) out->no_mouse = true;
		else if (!strcmp(name, "--help"))     want_help = true;
		else if (!strcmp(name, "--version"))  want_version = true;
		else if (!strcmp(name, "--stage")) {
			if (strcmp(val, "scores") != 0 && strcmp(val, "weights") != 0)
				return usage_error(msg, len, "--stage '%.40s' is not a stage to export: "
				                   "allowed scores, weights%s", val, "");
			out->export_scores = !strcmp(val, "scores");
			out->export_stage_given = true;
		} else if (!strcmp(name, "--export")) {
			if (strcmp(val, "py") != 0 && strcmp(val, "svg") != 0 && strcmp(val, "txt") != 0)
				return usage_error(msg, len, "--export '%.40s' is not a format: allowed py, svg, "
				                   "txt%s", val, "");
			if (i + 1 >= argc || argv[i + 1][0] == '\0')
				return usage_error(msg, len, "--export %.40s needs a FILE after the format "
				                   "(- for standard output)%s", val, "");
			if (set_mode(out, CLI_EXPORT, "--export", &mode_flag, msg, len) != 0)
				return 2;
			out->export_format = val;
			out->export_file = argv[++i];
		} else if (!strcmp(name, "--dump")) {
			if (strcmp(val, "json") != 0)
				return usage_error(msg, len, "--dump '%.40s' is not a format: allowed json%s", val, "");
			rc = set_mode(out, CLI_DUMP, "--dump", &mode_flag, msg, len);
		} else if (!strcmp(name, "--check-lessons")) {
			rc = set_mode(out, CLI_CHECK_LESSONS, "--check-lessons", &mode_flag, msg, len);
			if (eq)
				out->check_dir = eq + 1;
			else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
				out->check_dir = argv[++i];
		} else if (!strcmp(name, "--model")) { /* FILE is optional: the shipped model without it */
			out->lm.model_given = true;
			if (eq)
				out->lm.model = eq + 1;
			else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
				out->lm.model = argv[++i];
			if (out->lm.model && !out->lm.model[0])
				return usage_error(msg, len, "--model needs a FILE after '='%s%s (or no value: the "
				                   "shipped model)", "", "");
		} else if (!strcmp(name, "--corpus")) {
			out->lm.corpus = val;
		} else if (!strcmp(name, "--generate")) {
			rc = parse_int(name, val, 1, MHA_MAX_TOKENS, &out->lm.generate, msg, len);
		} else if (!strcmp(name, "--vocab")) {
			rc = parse_int(name, val, 3, 16384, &out->lm.vocab, msg, len);
		} else if (!strcmp(name, "--eval")) {
			rc = set_mode(out, CLI_EVAL, "--eval", &mode_flag, msg, len);
			out->lm.eval = true;
		}
		if (!rc && (!strcmp(name, "--train") || !strcmp(name, "--ablate")))
			rc = set_mode(out, name[2] == 't' ? CLI_TRAIN : CLI_ABLATE, name, &mode_flag, msg, len);
		if (!rc && !strcmp(name, "--circuits"))
			rc = set_mode(out, CLI_CIRCUITS, name, &mode_flag, msg, len);
		if (f->config && strcmp(name, "--text") != 0 && !out->lm.other)
			out->lm.other = f->name;
		if (!rc)
			rc = parse_train_flag(name, val, out, msg, len);
		if (!rc)
			rc = parse_circuits_flag(name, val, out, msg, len);
		if (rc)
			return rc;
		out->config_given |= f->config;
	}

	if (want_help) { out->mode = CLI_HELP; return 0; }
	if (want_version) { out->mode = CLI_VERSION; return 0; }
	if (out->load && out->config_given)
		return usage_error(msg, len, "--load '%.60s' cannot be combined with configuration flags%s: "
		                   "the session file holds the configuration", out->load, "");
	if (out->lesson && (out->text || out->kv_text))
		return usage_error(msg, len, "--lesson %.40s cannot be combined with --text%s: "
		                   "a lesson sets up its own tokens", out->lesson, out->text ? "" : " or --kv-text");
	if (out->lesson && out->mode == CLI_EXPORT)
		return usage_error(msg, len, "--lesson %.40s cannot be combined with --export%s", out->lesson, "");
	if (out->export_format && out->mode != CLI_EXPORT)
		return usage_error(msg, len, "--export cannot be combined with --dump, --train or "
		                   "--check-lessons%s%s", "", "");
	if (out->export_stage_given && (!out->export_format || !strcmp(out->export_format, "py")))
		return usage_error(msg, len, "--stage goes with --export svg FILE or --export txt FILE%s%s", "", "");
	if (out->lesson && (out->load || out->mode == CLI_DUMP))
		return usage_error(msg, len, "--lesson %.40s cannot be combined with --load or --dump%s",
		                   out->lesson, "");
	int rc = check_train_flags(out, msg, len);
	if (!rc && (out->circuits.json || out->circuits.position >= 0) && out->mode != CLI_CIRCUITS)
		rc = usage_error(msg, len, "--json and --position go with --circuits MODEL%s%s", "", "");
	if (!rc && out->mode == CLI_CIRCUITS && (out->config_given || out->load || out->lesson ||
	                                         out->train.task || out->grad || out->train.save ||
	                                         out->lm.model_given || out->lm.corpus || out->lm.vocab))
		rc = usage_error(msg, len, "--circuits %.60s reads a saved model and takes only --json and "
		                 "--position%s", out->circuits.model, "");
	if (rc || out->mode == CLI_CIRCUITS)
		return rc;
	if (!rc)
		rc = check_lm_flags(out, msg, len);
	if (rc || out->mode == CLI_TRAIN || out->mode == CLI_ABLATE || out->mode == CLI_EVAL ||
	    (out->lm.model_given && out->mode != CLI_TUI))
		return rc; /* training checks its own shape (train_shape_check); cfg stays valid;
		            * the language model has its own shape, and its tokenizer reads --text
		            * (on the workbench, --text is the workbench's sentence as without --model) */
	return finish_config(&gv, out, msg, len);
}

/* The flags of --grad, --train and --ablate; every other flag: 0, nothing
 * done. --heads, --d-model and --seed are noted as given (training has its
 * own defaults for them). */
static int parse_train_flag(const char *name, const char *val, struct cli *out,
                            char *msg, size_t len)
{
	struct cli_train *t = &out->train;
	const struct flag *f = flag_find(name, strlen(name));
	if (f && f->config && strcmp(name, "--heads") && strcmp(name, "--d-model") && strcmp(name, "--seed")
	    && !t->other_config)
		t->other_config = f->name; /* training has its own model: refused with --train */
	if (!strcmp(name, "--heads"))        t->heads = atoi(val);
	else if (!strcmp(name, "--d-model")) t->d_model = atoi(val);
	else if (!strcmp(name, "--seed"))    t->seed_given = true;
	else if (!strcmp(name, "--grad"))    out->grad = true;
	else if (!strcmp(name, "--layers"))  t->layers_text = val; /* read once the mode is known */
	else if (!strcmp(name, "--steps"))   return parse_int(name, val, 1, 1000000, &t->steps, msg, len);
	else if (!strcmp(name, "--seeds"))   return parse_int(name, val, 1, 100, &t->seeds, msg, len);
	else if (!strcmp(name, "--save"))    return file_name(name, val, msg, len) ? 2 : (t->save = val, 0);
	else if (!strcmp(name, "--train") || !strcmp(name, "--ablate")) {
		if (!strcmp(name, "--train") && !strcmp(val, "lm")) {
			/* the language model: no toy task behind it */
		} else if (!train_task_find(val))
			return usage_error(msg, len, "%s '%.40s' is not a task: allowed previous, first, "
			                   "duplicate, multi, induction (--train also lm)", name, val);
		if (t->task)
			return usage_error(msg, len, "%s %.40s: give one --train or --ablate", name, val);
		t->task = val;
		out->mode = name[2] == 't' ? CLI_TRAIN : CLI_ABLATE;
	}
	return 0;
}

/* The language model's flags: --corpus with --train lm or --eval; --vocab
 * with --train lm; --model with --eval or --dump json --text, and then no
 * configuration flag but --text (the model has its own shape). */
static int check_lm_flags(const struct cli *out, char *msg, size_t len)
{
	const struct cli_lm *lm = &out->lm;
	bool train_lm = out->mode == CLI_TRAIN && !strcmp(out->train.task, "lm");
	if (lm->corpus && !train_lm && out->mode != CLI_EVAL)
		return usage_error(msg, len, "--corpus %.60s goes with --train lm or --eval%s", lm->corpus, "");
	if (lm->vocab && !train_lm)
		return usage_error(msg, len, "--vocab goes with --train lm%s%s", "", "");
	if (train_lm && (out->train.seeds || lm->model_given))
		return usage_error(msg, len, "--train lm takes --corpus, --steps, --seed, --save, --vocab, "
		                   "--d-model, --heads, --layers%s%s", "", "");
	if (out->mode == CLI_EVAL && (out->config_given || out->load || out->lesson || out->train.save))
		return usage_error(msg, len, "--eval takes --model [FILE] and --corpus DIR only%s%s", "", "");
	if (lm->model_given && out->mode != CLI_EVAL && out->mode != CLI_DUMP && out->mode != CLI_TUI)
		return usage_error(msg, len, "--model goes with --eval, --dump json --text \"WORDS\", or the workbench "
		                   "(--text \"WORDS\", W)%s%s", "", "");
	if (lm->generate && !(lm->model_given && out->mode == CLI_DUMP))
		return usage_error(msg, len, "--generate N goes with --dump json --text \"WORDS\" --model [FILE]%s%s",
		                   "", "");
	if (lm->model_given && out->mode == CLI_DUMP) {
		if (!out->text)
			return usage_error(msg, len, "--dump json --model needs --text \"WORDS\": the sentence "
			                   "to run through the model%s%s", "", "");
		if (lm->other)
			return usage_error(msg, len, "%s is not for the language model: it has its own shape; "
			                   "give --text \"WORDS\" and --model [FILE] only%s", lm->other, "");
		if (out->load || out->grad)
			return usage_error(msg, len, "--model cannot be combined with %s%s", out->load ? "--load" : "--grad", "");
	}
	return 0;
}

/* Combinations: --grad goes with --dump json; --save, --layers, --steps
 * with --train or --ablate; --seeds with --ablate. */
static int check_train_flags(struct cli *out, char *msg, size_t len)
{
	struct cli_train *t = &out->train;
	bool training = out->mode == CLI_TRAIN || out->mode == CLI_ABLATE;
	/* --layers: the trained model's (1..2), else the stack's (1..4), a configuration flag */
	if (t->layers_text && training &&
	    parse_int("--layers", t->layers_text, 1, TRAIN_MAX_LAYERS, &t->layers, msg, len) != 0)
		return 2;
	if (t->layers_text && !training) {
		if (parse_int("--layers", t->layers_text, 1, MHA_MAX_LAYERS, &out->cfg.layers, msg, len) != 0)
			return 2;
		out->config_given = true;
		if (out->lm.model_given && !out->lm.other)
			out->lm.other = "--layers"; /* the language model has its own layers */
		if (out->load)
			return usage_error(msg, len, "--load '%.60s' cannot be combined with configuration flags%s: "
			                   "the session file holds the configuration", out->load, "");
	}
	if (out->grad && out->mode != CLI_DUMP)
		return usage_error(msg, len, "--grad adds gradients to the dump%s: use it with --dump json%s", "", "");
	if (training && t->other_config)
		return usage_error(msg, len, "%s is not for training: --train and --ablate take --heads, "
		                   "--d-model, --seed (and --layers, --steps%s); see doc/TRAINING.md",
		                   t->other_config, out->mode == CLI_ABLATE ? ", --seeds" : ", --save");
	if (training && (out->load || out->lesson))
		return usage_error(msg, len, "--%s %.40s cannot be combined with --load or --lesson",
		                   out->mode == CLI_TRAIN ? "train" : "ablate", t->task);
	if (!training && (t->save || t->steps))
		return usage_error(msg, len, "--save and --steps go with --train TASK%s%s", "",
		                   " or --ablate TASK");
	if (out->mode != CLI_ABLATE && t->seeds)
		return usage_error(msg, len, "--seeds goes with --ablate TASK%s%s", "", "");
	if (out->mode == CLI_ABLATE && (t->save || t->layers))
		return usage_error(msg, len, "--ablate trains the task's default model at every h and saves "
		                   "none%s%s: leave out --save and --layers", "", "");
	if (t->task && !training)
		return usage_error(msg, len, "--train/--ablate %.40s cannot be combined with --dump or "
		                   "--check-lessons%s", t->task, "");
	return 0;
}

/* --circuits MODEL, --json, --position P (doc/CIRCUITS.md); every other
 * flag: 0, nothing done. The position is checked against the model's
 * context when the model is read. */
static int parse_circuits_flag(const char *name, const char *val, struct cli *out,
                               char *msg, size_t len)
{
	if (!strcmp(name, "--json")) {
		out->circuits.json = true;
	} else if (!strcmp(name, "--position")) {
		return parse_int(name, val, 0, MHA_MAX_TOKENS - 1, &out->circuits.position, msg, len);
	} else if (!strcmp(name, "--circuits")) { /* one mode: set_mode has seen to it */
		out->circuits.model = val;
		out->mode = CLI_CIRCUITS;
	}
	return 0;
}
