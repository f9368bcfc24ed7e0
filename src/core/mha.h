/*
 * mha.h - the compute core of mha-tui: multi-head attention, every stage kept.
 *
 * Dimension legend, used in every shape comment of the project:
 *   n = tokens, d = d_model, h = heads, g = kv heads, dk = head size (d_v = dk)
 *
 * The core knows nothing of terminals or files. It never prints, exits or
 * allocates behind the caller's back: allocation happens only in the
 * *_alloc functions, and errors come back as an mha_status with a message.
 *
 * Usage:
 *
 *     struct mha_config cfg = mha_config_default();   // n 6, d 16, h 4
 *     char msg[MHA_MSG_MAX];
 *     if (mha_config_check(&cfg, msg, sizeof msg) != MHA_OK) { puts(msg); return; }
 *     struct mha_weights w;  struct mha_acts a;
 *     mha_weights_alloc(&w, &cfg);  mha_acts_alloc(&a, &cfg);
 *     mha_weights_init(&w, &cfg, 42);       // seeded, same on every machine
 *     mha_forward(&cfg, &w, &a);            // fills every intermediate
 *     printf("%g\n", a.y[0]);               // Y[0][0]
 *     struct mha_counts c = mha_counts(&cfg);
 *     mha_acts_free(&a);  mha_weights_free(&w);
 */
#ifndef MHA_H
#define MHA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	MHA_MAX_TOKENS = 64,   /* n in 1..64 */
	MHA_MAX_D_MODEL = 1024, /* d in 1..1024 */
	MHA_MAX_HEADS = 64,    /* h in 1..64 */
	MHA_MAX_DK = 1024,     /* dk in 1..1024 */
	MHA_MAX_WIDTH = 4096,  /* h * dk at most: keeps W^Q under 16 MiB */
	MHA_LABEL_MAX = 16,    /* token label bytes, NUL included */
	MHA_MSG_MAX = 256,     /* room for any message the core writes */
};

/* Inputs (X and the W's) must be finite and within this magnitude. With
 * d, h*dk <= 4096 it keeps every intermediate finite in float:
 * |Q| <= 1e6*1e6*1024 ~ 1e15, |scores| <= 1e15^2*1024 ~ 1e33 < 3.4e38. */
#define MHA_VALUE_MAX 1e6f

enum mha_status {
	MHA_OK = 0,
	MHA_EINVAL, /* a configuration field out of range or inconsistent */
	MHA_ENOMEM, /* allocation failed */
	MHA_ERANGE, /* an input value is not finite or beyond MHA_VALUE_MAX */
};

struct mha_config {
	int n;        /* tokens, 1..MHA_MAX_TOKENS */
	int d;        /* d_model, 1..MHA_MAX_D_MODEL */
	int h;        /* query heads, 1..MHA_MAX_HEADS */
	int g;        /* key/value heads; divides h (g = h: MHA, g = 1: MQA) */
	int dk;       /* head size d_k = d_v, 1..MHA_MAX_DK; often d / h */
	bool causal;  /* query i sees keys j <= i only */
	int top_k;    /* keep each query's k largest scores; 0 = off */
	bool scale;   /* multiply scores by 1/sqrt(dk) (true in the paper) */
	uint64_t seed;                   /* seed of the last mha_weights_init */
	bool head_off[MHA_MAX_HEADS];    /* true: head i switched off (pruned) */
	/* Masks beyond causal (mask.c; all zero = none). They apply to tokens
	 * 0..MHA_MAX_TOKENS-1 (the window to every token; the planned forward's
	 * large path applies them all, src/engine/flash.c);
	 * bits at or past n are ignored. */
	uint64_t pad;                    /* bit t: token t is padding */
	int window;                      /* sliding window width w; 0 = off */
	uint64_t hide[MHA_MAX_TOKENS];   /* custom mask: bit j of hide[i] hides key j from query i */
	bool bias;                       /* add b^Q, b^K, b^V, b^O (off, as in the paper) */
};

/* Inputs the learner edits. Row-major, one allocation (freed by
 * mha_weights_free). */
struct mha_weights {
	float *x;   /* (n, d)      token embeddings                       */
	float *wq;  /* (d, h*dk)   W^Q, head i is column block i           */
	float *wk;  /* (d, g*dk)   W^K, kv head j is column block j        */
	float *wv;  /* (d, g*dk)   W^V                                    */
	float *wo;  /* (h*dk, d)   W^O                                    */
	float *bq;  /* (h*dk)      b^Q, added to every row of Q when cfg.bias */
	float *bk;  /* (g*dk)      b^K, to every row of K                  */
	float *bv;  /* (g*dk)      b^V, to every row of V                  */
	float *bo;  /* (d)         b^O, to every row of Y                  */
	char (*labels)[MHA_LABEL_MAX]; /* (n) token labels                */
	void *mem;
};

/* Every intermediate of one forward pass. One allocation; the fields
 * point into it. */
struct mha_acts {
	float *q;       /* (n, h*dk)   Q = X W^Q                                 */
	float *k;       /* (n, g*dk)   K = X W^K                                 */
	float *v;       /* (n, g*dk)   V = X W^V                                 */
	float *scores;  /* (h, n, n)   S_i = Q_i K_j^T * s, before mask; s = 1/sqrt(dk) or 1 */
	float *weights; /* (h, n, n)   P_i = softmax(mask(S_i)) row-wise         */
	float *heads;   /* (h, n, dk)  O_i = P_i V_j                             */
	float *concat;  /* (n, h*dk)   [O_1 ... O_h], zero blocks for heads off  */
	float *y;       /* (n, d)      Y = Concat W^O                            */
	unsigned char *dead_row; /* (h, n) 1 where every key was masked: row of P is all 0 */
	/* (h, n, MHA_KEPT_WORDS(n)) which keys each query row of each head
	 * kept, after the mask and top-k: bit k % 64 of word k / 64. A kept
	 * key's weight can still be 0 where exp underflowed (pipeline_masked). */
	uint64_t *kept;
	void *mem;
};
/* 64-bit words of one row of mha_acts.kept: ceil(n / 64). */
#define MHA_KEPT_WORDS(n) (((size_t)(n) + 63) / 64)

/* Parameters and FLOPs. Convention: a multiply-add counts 2 FLOPs, every
 * other arithmetic operation or exp counts 1. */
struct mha_counts {
	int64_t params_wq, params_wk, params_wv, params_wo, params_total;
	int64_t flops_projection;   /* Q, K, V: 2 n d (h + 2g) dk              */
	int64_t flops_scores;       /* 2 n^2 dk per head (the scale folds into W^Q) */
	int64_t flops_softmax;      /* per row: max n, subtract n, exp n, sum n, divide n: 5 n^2 per head */
	int64_t flops_weighted_sum; /* 2 n^2 dk per head                        */
	int64_t flops_output;       /* 2 n (h dk) d                             */
	int64_t flops_total;
	int64_t kv_cache_per_token; /* 2 g dk values (K and V)                  */
	int64_t flops_one_full_head;/* one head with dk = d, no GQA: the "flat cost" reference */
	/* Masks and sparsity: the dense FLOPs above never change with masks
	 * or top-k (every product is computed, as on a GPU); these say what a
	 * kernel that skips work could save. Pairs are (query, key) cells of
	 * one head; every head has the same counts. */
	int64_t pairs_visible;           /* cells the mask keeps (mha_mask_row, before top-k) */
	int64_t pairs_kept;              /* after top-k: sum over rows of min(top_k, visible) */
	int64_t flops_scores_masked;     /* 2 h dk (n^2 - visible): scores a mask-aware kernel skips */
	int64_t flops_weighted_skippable;/* 2 h dk (n^2 - kept): P V products whose weight is 0 */
	int64_t flops_sparse_saving;     /* 4 h dk (visible - kept): the scores and P V products
	                                  * top-k drops, if a selector picks the keys without them */
	double selector_break_even;      /* FLOPs a selector may spend per visible pair and still
	                                  * win: flops_sparse_saving / pairs_visible (0: none) */
};

/*
 * The KV cache at model scale (config.c). Per token and layer a decoder
 * keeps K and V for every kv head: 2 g dk values; times L layers; times
 * the bytes of one value; times the context length.
 *   LLaMA-2-70B: 2 x 8 x 128 x 80 = 163,840 values/token = 320 KiB in fp16,
 *   1.25 GiB at 4,096 tokens (10 GiB with 64 kv heads, plain MHA).
 */
enum mha_dtype { MHA_FP32, MHA_FP16, MHA_INT8, MHA_DTYPE_COUNT };

struct mha_kv_cache {
	int64_t values_token_layer; /* 2 g dk */
	int64_t values_token;       /* 2 g dk L */
	int64_t bytes_token_layer;  /* 2 g dk b */
	int64_t bytes_token;        /* 2 g dk L b */
	int64_t bytes_context_layer;/* 2 g dk b T */
	int64_t bytes_context;      /* 2 g dk L b T: the whole model's cache at T tokens */
};

/* A model shape for the KV-cache table. */
struct mha_model {
	const char *name;
	int d, h, g, dk, layers;
};

int mha_dtype_bytes(enum mha_dtype t);       /* 4, 2, 1 */
const char *mha_dtype_name(enum mha_dtype t); /* "fp32", "fp16", "int8" */
/* The cache of g kv heads of size dk over L layers, b bytes a value, T tokens. */
struct mha_kv_cache mha_kv_cache(int g, int dk, int layers, enum mha_dtype t, int64_t context);
/* Presets, ending with { NULL }: the paper's base model (d 512, h 8, dk 64,
 * 6 layers) and a LLaMA-2-70B-shaped one (d 8192, h 64, g 8, dk 128, 80). */
extern const struct mha_model mha_models[];

/* Tensors in pipeline order. The table behind mha_tensor_info is what the
 * dump, the TUI and the tests walk. */
enum mha_tensor {
	MHA_T_X, MHA_T_WQ, MHA_T_WK, MHA_T_WV, MHA_T_WO,
	MHA_T_Q, MHA_T_K, MHA_T_V,
	MHA_T_SCORES, MHA_T_WEIGHTS, MHA_T_HEADS,
	MHA_T_CONCAT, MHA_T_Y,
	MHA_T_COUNT
};

struct mha_shape {
	int count; /* matrices: h for per-head tensors, else 1 */
	int rows, cols;
};

struct mha_tensor_info {
	const char *name;    /* as on screen: "W^Q", "Q", "P" */
	const char *key;     /* as in the JSON dump: "W_Q", "Q", "weights" */
	const char *formula; /* "Q = X W^Q" */
	bool input;          /* editable by the learner */
};

const struct mha_tensor_info *mha_tensor_info(enum mha_tensor t);
struct mha_shape mha_tensor_shape(const struct mha_config *c, enum mha_tensor t);
float *mha_tensor_data(const struct mha_weights *w, const struct mha_acts *a,
                       enum mha_tensor t);

/* Configuration. */
struct mha_config mha_config_default(void);
/* MHA_OK, or MHA_EINVAL with msg naming the field, its value and what is allowed. */
enum mha_status mha_config_check(const struct mha_config *c, char *msg, size_t len);
/* The same rules with tokens allowed up to max_tokens (the planned forward's limit). */
enum mha_status mha_config_check_limit(const struct mha_config *c, int max_tokens,
                                       char *msg, size_t len);
/* Which kv head query head i reads: floor(i / (h/g)) (LLaMA repeat_kv). */
int mha_kv_head(const struct mha_config *c, int i);

/* Inputs. */
enum mha_status mha_weights_alloc(struct mha_weights *w, const struct mha_config *c);
void mha_weights_free(struct mha_weights *w);
/* Seed MHA_SEED_WIRED (0, the default) gives the wired workbench: X holds
 * word and position features, and heads 0-3 (then again 4-7, ...) attend
 * to the previous token, the same word, the first token and the next
 * token; W^V and W^O random. Any other seed gives plain seeded random
 * inputs: X ~ U(-1, 1), each W Glorot-uniform. */
#define MHA_SEED_WIRED 0
void mha_weights_init(struct mha_weights *w, struct mha_config *c, uint64_t seed);
/* Which wiring head still holds in W^Q and W^K: 0 previous token, 1 same
 * word, 2 first token, 3 next token; -1 when edited away (or never wired).
 * Its name, in full ("previous token") or brief ("prev"). */
int mha_wired_role(const struct mha_weights *w, const struct mha_config *c, int head);
const char *mha_wired_role_name(int role, bool brief);
void mha_weights_default_labels(struct mha_weights *w, const struct mha_config *c);
/* Reshape-safe copy: every cell that exists in both shapes keeps its value,
 * matched per head block for W^Q, W^K, W^V (columns) and W^O (rows); a
 * matrix whose width h*dk (g*dk) is unchanged is only regrouped into heads,
 * so each of its cells keeps its place. Cells new to dst keep what dst
 * already holds (the caller seeds them first). The biases go with their
 * matrices: b^Q with W^Q's columns, b^K and b^V with W^K's, b^O with d. */
void mha_weights_carry(struct mha_weights *dst, const struct mha_config *dc,
                       const struct mha_weights *src, const struct mha_config *sc);
/* A token label is 1..MHA_LABEL_MAX-1 bytes of valid UTF-8 with no space
 * or control character, so it reads back from a session file and prints
 * as JSON unchanged. */
bool mha_label_valid(const char *s);
/* Your own text (text.c). Split text into words at spaces and tabs, one
 * token a word, into labels (room for max); returns the word count, or -1
 * with msg when a word is not a valid label, there are none, or more than
 * max. */
int mha_text_split(const char *text, char (*labels)[MHA_LABEL_MAX], int max, char *msg, size_t len);
/* Row t of X = the embedding of word labels[t]: d values in [-1, 1) drawn
 * from (seed, the word's bytes) alone, so a repeated word shares its row
 * and a word keeps its vector in any sentence of the same seed. */
void mha_embed_words(struct mha_weights *w, const struct mha_config *c, uint64_t seed);

/* Bias k of MHA_BIASES, in the order b^Q, b^K, b^V, b^O: its names
 * (screen "b^Q", dump and session key "b_Q"), vector and length (h*dk,
 * g*dk, g*dk, d). */
enum { MHA_BIASES = 4 };
struct mha_bias {
	const char *name, *key;
	float *p;
	int len;
};
struct mha_bias mha_bias(const struct mha_weights *w, const struct mha_config *c, int k);
/* b^Q, b^K, b^V, b^O ~ U(-0.5, 0.5) from their own stream of seed (X and
 * the W's keep theirs). */
void mha_biases_init(struct mha_weights *w, const struct mha_config *c, uint64_t seed);
/* The inputs a fresh configuration starts with (the command line's and the
 * workbench's alike): allocated, seeded from c->seed, default labels, and
 * seeded biases when c->bias. MHA_ENOMEM leaves w empty. */
enum mha_status mha_weights_start(struct mha_weights *w, struct mha_config *c);

/* MHA_OK, or MHA_ERANGE naming the first bad input cell. */
enum mha_status mha_weights_check(const struct mha_weights *w, const struct mha_config *c,
                                  char *msg, size_t len);

/* Activations and the forward pass. The engine (src/engine/engine.h)
 * runs the same pass planned, threaded and tiled, for large n. */
enum mha_status mha_acts_alloc(struct mha_acts *a, const struct mha_config *c);
void mha_acts_free(struct mha_acts *a);
void mha_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a);
/* The same with plain loops in double accumulators: the reference the tests trust. */
void mha_forward_naive(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a);

/* One row of softmax with the mask and top-k applied, in place of the
 * separate steps so that masked weights come out exactly 0:
 *   p_j = exp(s_j - m) / sum_kept exp(s_k - m), m = max over kept keys,
 * where key j is kept when j < limit (causal: limit = i + 1) and, with
 * top_k > 0, s_j is among the top_k largest kept scores (ties: the lower
 * index wins). Returns true when no key is kept: then p is all 0. */
bool mha_softmax_row(const float *s, float *p, int n, int limit, int top_k);

struct mha_counts mha_counts(const struct mha_config *c);

/*
 * Masks (mask.c): the one place that says which keys a query sees. Every
 * forward, the dump, the counts and the screen ask it. Kept keys of query
 * row i are those allowed by ALL of
 *   causal:   j <= i
 *   window w: i-w+1 <= j <= i with causal; |i - j| < w without (a band)
 *   padding:  key j is not a padding token (for every query, padding too)
 *   custom:   bit j of hide[i] is clear
 * and then, when scores are given and top_k > 0, the top_k largest kept
 * scores (ties: the lower index). GQA changes nothing here: the mask is
 * per query row, shared by every head; only top-k differs per head.
 * Padding query rows are computed like any other (over the non-padding
 * keys, as PyTorch's key_padding_mask does) and flagged by mha_is_pad:
 * their outputs are to be ignored, not zeroed, so each kept row still sums
 * to 1. A row with no kept key gives P = 0 (dead_row), never NaN.
 *
 *     unsigned char keep[MHA_MAX_TOKENS];
 *     int kept = mha_mask_row(&cfg, i, NULL, keep);  // structural mask only
 *     mha_mask_row(&cfg, i, a.scores + (h_i*n + i)*n, keep); // with head h_i's top-k
 */
/* Fills keep[0..n) with 1 (kept) or 0 (masked) for query row i; s: that
 * row's n scores for top-k, or NULL. Returns the number kept. */
int mha_mask_row(const struct mha_config *c, int i, const float *s, unsigned char *keep);
/* Is token t padding? */
bool mha_is_pad(const struct mha_config *c, int t);
/* True when a mask beyond causal and top-k is set (padding, window, custom). */
bool mha_mask_extra(const struct mha_config *c);
/* Hide (hidden = true) or show key j to query i in the custom mask. */
void mha_mask_set(struct mha_config *c, int i, int j, bool hidden);
/* Softmax over the keys with keep[j] != 0 only (no top-k: mha_mask_row has
 * applied it): masked weights exactly 0; true and an all-zero row when no
 * key is kept. */
bool mha_softmax_keep(const float *s, float *p, int n, const unsigned char *keep);

/*
 * Prefill and decode (decode.c): a causal decoder generates one token at a
 * time, keeping each token's K and V rows in a cache so that a step costs
 * O(t) instead of recomputing the O(t^2) pass. Token t's input is row t of
 * X (teacher forcing: the sentence is known). Step t:
 *   q_t, k_t, v_t = x_t W^Q, x_t W^K, x_t W^V;  append k_t, v_t to the cache
 *   s_i = q_t,i K_j[0..t]^T * s,  p_i = softmax(mask(s_i)),  o_i = p_i V_j[0..t]
 *   y_t = [o_1 .. o_h] W^O
 * with the same plain loops as mha_forward_naive, so row t of Y, of each
 * P_i and the cache equal that pass's rows bit for bit (and mha_forward's
 * within float rounding). Needs cfg.causal: a later key does not exist yet.
 *
 *     struct mha_decoder dec;
 *     mha_decoder_alloc(&dec, &cfg);        // cache room for cfg.n tokens
 *     mha_decoder_prefill(&dec, &cfg, &w, 3); // tokens 0..2 at once
 *     while (dec.len < cfg.n)
 *         mha_decoder_step(&dec, &cfg, &w);  // dec.y: the new token's Y row
 *     mha_decoder_free(&dec);
 */
struct mha_decoder {
	int len;                /* tokens in the cache */
	int cap;                /* room: cfg.n tokens */
	float *k, *v;           /* (cap, g*dk) the cache: rows 0..len-1 are K, V of those tokens */
	float *q;               /* (h*dk)   the last token's query                      */
	float *scores;          /* (h, cap) the last token's scores, keys 0..len-1      */
	float *weights;         /* (h, cap) its softmax row (P_i[len-1, :])             */
	float *concat;          /* (h*dk)   its [o_1 .. o_h], zero blocks for heads off */
	float *y;               /* (d)      its output row                              */
	unsigned char *dead;    /* (h) 1 where the mask left the row no key             */
	void *mem;
};

/* What one step costs against recomputing the whole causal pass. */
struct mha_decode_cost {
	int64_t step_flops;      /* step t: projections 2d(h+2g)dk + scores and weighted sum
	                          * 4 h dk (t+1) + softmax 5 h (t+1) + output 2 h dk d */
	int64_t recompute_flops; /* mha_counts' dense total at n = t+1 */
	int64_t cache_values;    /* 2 g dk (t+1): K and V held after the step */
};

enum mha_status mha_decoder_alloc(struct mha_decoder *dec, const struct mha_config *c);
void mha_decoder_free(struct mha_decoder *dec);
/* Empty the cache (len = 0). */
void mha_decoder_reset(struct mha_decoder *dec);
/* Tokens len..len+count-1 at once (their K and V by one product), then the
 * last one's outputs as a step. MHA_EINVAL (msg) unless causal and the
 * count fits. */
enum mha_status mha_decoder_prefill(struct mha_decoder *dec, const struct mha_config *c,
                                    const struct mha_weights *w, int count, char *msg, size_t len);
/* The next token (row len of X). MHA_EINVAL when the cache is full or the
 * config is not causal. */
enum mha_status mha_decoder_step(struct mha_decoder *dec, const struct mha_config *c,
                                 const struct mha_weights *w);
struct mha_decode_cost mha_decode_cost(const struct mha_config *c, int t);

/* The phases of a forward pass, for the engine's profile (engine.h:
 * mha_plan_profile). "Stage" is the pipeline's word; these are clocks. */
enum mha_phase {
	MHA_PHASE_PROJECT,  /* Q, K, V = X W^Q, X W^K, X W^V */
	MHA_PHASE_SCORES,   /* S = Q K^T s */
	MHA_PHASE_SOFTMAX,  /* P = softmax(mask(S)) */
	MHA_PHASE_WEIGHTED, /* O = P V, into the concat */
	MHA_PHASE_OUTPUT,   /* Y = Concat W^O */
	MHA_PHASE_COUNT
};

/* Parse one typed or stored value: a whole decimal number ("0.5", "-3",
 * "1e-3"), finite and within +-MHA_VALUE_MAX, nothing else on the line but
 * spaces. Independent of the locale's decimal point. MHA_OK or MHA_ERANGE
 * with a message saying what was wrong. */
enum mha_status mha_parse_value(const char *text, float *out, char *msg, size_t len);

/* The number at the start of text, for a parser that reads on after it:
 * the same characters as mha_parse_value (digits, sign, '.', exponent; no
 * "nan", "inf" or hexadecimal), locale-independent, finite (an underflow
 * reads as 0 or a denormal), not limited to MHA_VALUE_MAX. MHA_OK with
 * *end just past the number; MHA_EINVAL when text does not start with
 * one; MHA_ERANGE when it overflows a double or is 64 bytes or longer. */
enum mha_status mha_scan_number(const char *text, const char **end, double *out);

/* Replace every control character of s with '?', in place: C0 (0x00-
 * 0x1f), DEL, C1 both raw (0x80-0x9f, e.g. 0x9b, a CSI to some
 * terminals) and in UTF-8 (U+0080-U+009F), and each byte of anything
 * that is not well-formed UTF-8. A message that quotes what the user
 * typed or a file held can then never move the cursor or clear the
 * screen when printed; other UTF-8 text passes whole. */
void mha_text_clean(char *s);

const char *mha_strerror(enum mha_status s);

#endif
