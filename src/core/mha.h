/*
 * mha.h - the compute core of mha-tui: multi-head attention, every stage kept.
 *
 * Dimension legend, used in every shape comment of the project:
 *   n = tokens, d = d_model, h = heads, g = kv heads, dk = head size (d_v = dk)
 *   m = kv tokens (cross-attention's source; 0 = self-attention), L = layers
 *   nk = keys per query row: m with cross-attention, else n (mha_keys)
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
 *
 * Positions (cfg.pos), cross-attention (cfg.m) and stacked layers
 * (cfg.layers) are settings of the same pass: mha_forward computes layer 0
 * of any configuration, and a stack of layers runs beside it:
 *
 *     struct mha_stack s;
 *     mha_stack_alloc(&s, &cfg);            // cfg.layers activations
 *     mha_stack_forward(&cfg, &w, &s);      // s.layer[l]: layer l's intermediates
 *     s.layer[cfg.layers - 1].stream[0];    // the residual stream after the last layer
 *     mha_stack_free(&s);
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
	MHA_MAX_KV_TOKENS = 64, /* m in 0..64 (0: self-attention) */
	MHA_MAX_LAYERS = 4,    /* L in 1..4 */
	MHA_MAX_POS_OFFSET = 65536, /* cfg.pos_offset in 0..65536 */
};

/* Where the order of the tokens enters (position.c). Attention alone is
 * permutation-equivariant: with MHA_POS_NONE, permuting the tokens
 * permutes Y's rows and nothing else. */
enum mha_pos {
	MHA_POS_NONE,       /* no positions (the default, as the workbench always was) */
	MHA_POS_LEARNED,    /* X + P: P (n, d) an input the learner edits */
	MHA_POS_SINUSOIDAL, /* X + PE, PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same) */
	MHA_POS_ROPE,       /* each head's q and k columns (2i, 2i+1) rotated by p 10000^(-2i/dk) */
	MHA_POS_COUNT
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
	/* Where order enters, the second sequence, the stack (mha_config_default:
	 * none, 0, 1). With m > 0 the keys are X_kv's tokens: pad, window, the
	 * custom mask and top-k apply on that axis, and causal is refused (no
	 * token of one sequence comes after a token of another). */
	enum mha_pos pos;   /* none, learned, sinusoidal or RoPE */
	int pos_offset;     /* position of token 0 (sinusoidal, RoPE): every position shifted
	                     * by it; 0..MHA_MAX_POS_OFFSET. Each sequence counts from it */
	int m;              /* kv tokens: 0 = self-attention; 1..64: K and V from X_kv (m, d) */
	int layers;         /* 1..MHA_MAX_LAYERS, each with its own W's, on the residual stream */
};

/* One layer's projections and biases, shaped as mha_weights' (layer l of
 * the stack: mha_weights_layer). */
struct mha_layer_weights {
	float *wq, *wk, *wv; /* (d, h*dk), (d, g*dk), (d, g*dk) */
	float *wo;           /* (h*dk, d) */
	float *bq, *bk, *bv; /* (h*dk), (g*dk), (g*dk) */
	float *bo;           /* (d) */
};

/* Inputs the learner edits. Row-major, one allocation (freed by
 * mha_weights_free). The fields x .. labels are all a one-layer
 * self-attention block without positions reads (a caller may fill just
 * those, as src/train does); the rest serve positions, cross-attention
 * and the stack. */
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
	float *x_kv; /* (m, d)      source tokens: K = X_kv W^K, V = X_kv W^V (m > 0) */
	float *pos;  /* (n, d)      learned positions P, added to X (pos learned) */
	char (*kv_labels)[MHA_LABEL_MAX]; /* (m) source token labels        */
	/* layers 1..L-1, each shaped as layer 0's (wq .. bo above) */
	struct mha_layer_weights upper[MHA_MAX_LAYERS - 1];
	void *mem;
};

/* Every intermediate of one forward pass of one layer. One allocation;
 * the fields point into it. Layer 0 reads X; layer l > 0 the stream x_l
 * (mha_stack). */
struct mha_acts {
	float *pe;      /* (n, d)      PE added to X in layer 0: sinusoidal, or P (learned);
	                 *             0 for none and RoPE, and in every later layer */
	float *xin;     /* (n, d)      x_l, the layer's input: X + PE in layer 0      */
	float *q;       /* (n, h*dk)   Q = x_l W^Q (before any rotation)              */
	float *k;       /* (nk, g*dk)  K = x_l W^K, or X_kv W^K with cross-attention  */
	float *v;       /* (nk, g*dk)  V = x_l W^V, or X_kv W^V                        */
	float *q_rot;   /* (n, h*dk)   RoPE: Q with each head's pairs rotated by position
	                 *             (pos rope only; what the scores read then)     */
	float *k_rot;   /* (nk, g*dk)  RoPE: K rotated likewise                        */
	float *scores;  /* (h, n, nk)  S_i = Q_i K_j^T * s, before mask; s = 1/sqrt(dk) or 1 */
	float *weights; /* (h, n, nk)  P_i = softmax(mask(S_i)) row-wise         */
	float *heads;   /* (h, n, dk)  O_i = P_i V_j                             */
	float *concat;  /* (n, h*dk)   [O_1 ... O_h], zero blocks for heads off  */
	float *y;       /* (n, d)      Y = Concat W^O                            */
	float *stream;  /* (n, d)      x_l+1 = x_l + Y: the residual stream after the layer */
	unsigned char *dead_row; /* (h, n) 1 where every key was masked: row of P is all 0 */
	/* (h, n, MHA_KEPT_WORDS(nk)) which keys each query row of each head
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
	int64_t params_wq, params_wk, params_wv, params_wo, params_total; /* one layer */
	int64_t flops_projection;   /* Q, K, V: 2 n d h dk + 2 nk d 2g dk (nk = n: 2 n d (h + 2g) dk) */
	int64_t flops_scores;       /* 2 n nk dk per head (the scale folds into W^Q) */
	int64_t flops_softmax;      /* per row: max, subtract, exp, sum, divide over nk: 5 n nk per head */
	int64_t flops_weighted_sum; /* 2 n nk dk per head                       */
	int64_t flops_output;       /* 2 n (h dk) d                             */
	int64_t flops_position;     /* adding PE: n d (sinusoidal, learned); RoPE: 3 (n h dk +
	                             * nk g dk), a 2x2 rotation of each pair (sin, cos given); 0 none */
	int64_t flops_total;        /* one layer: the six above                 */
	int64_t params_stack;       /* L params_total: every layer's W's        */
	int64_t flops_stack;        /* every layer (PE added once, RoPE in each) and the
	                             * residual adds, n d per layer             */
	int64_t kv_cache_per_token; /* 2 g dk values (K and V)                  */
	int64_t flops_one_full_head;/* one head with dk = d, no GQA: the "flat cost" reference */
	/* Masks and sparsity: the dense FLOPs above never change with masks
	 * or top-k (every product is computed, as on a GPU); these say what a
	 * kernel that skips work could save. Pairs are (query, key) cells of
	 * one head; every head has the same counts. */
	int64_t pairs_visible;           /* cells the mask keeps (mha_mask_row, before top-k) */
	int64_t pairs_kept;              /* after top-k: sum over rows of min(top_k, visible) */
	int64_t flops_scores_masked;     /* 2 h dk (n nk - visible): scores a mask-aware kernel skips */
	int64_t flops_weighted_skippable;/* 2 h dk (n nk - kept): P V products whose weight is 0 */
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

/* Tensors. The table behind mha_tensor_info is what the dump, the TUI and
 * the tests walk. X .. Y are one self-attention layer in pipeline order
 * (X .. W^O its original inputs, the block sessions and exports walk);
 * after them come what positions, cross-attention and the stack add:
 * inputs X_kv and P_pos, then, in the order computed, PE, x_l (X + PE),
 * the rotated Q and K, and the stream after the layer. Which of them a
 * configuration uses: mha_tensor_used. */
enum mha_tensor {
	MHA_T_X, MHA_T_WQ, MHA_T_WK, MHA_T_WV, MHA_T_WO,
	MHA_T_Q, MHA_T_K, MHA_T_V,
	MHA_T_SCORES, MHA_T_WEIGHTS, MHA_T_HEADS,
	MHA_T_CONCAT, MHA_T_Y,
	MHA_T_XKV,    /* (m, d)     input: cross-attention's source tokens       */
	MHA_T_POS,    /* (n, d)     input: learned positions P                   */
	MHA_T_PE,     /* (n, d)     what is added to X (0 for none and RoPE)     */
	MHA_T_XIN,    /* (n, d)     x_l: X + PE in layer 0, the stream after     */
	MHA_T_QROT,   /* (n, h*dk)  Q rotated (RoPE)                             */
	MHA_T_KROT,   /* (nk, g*dk) K rotated (RoPE)                             */
	MHA_T_STREAM, /* (n, d)     x_l+1 = x_l + Y                              */
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
/* Its shape under c: X_kv has m rows (0 with self-attention); K, V, K_rot
 * have nk rows; S and P are (h, n, nk). */
struct mha_shape mha_tensor_shape(const struct mha_config *c, enum mha_tensor t);
/* Layer 0's tensor: its W's and biases are layer 0's; a is layer 0's
 * activations (either may be NULL: then NULL for its tensors). */
float *mha_tensor_data(const struct mha_weights *w, const struct mha_acts *a,
                       enum mha_tensor t);
/* The same in layer `layer` of a stack: W^Q .. W^O that layer's, a that
 * layer's activations (mha_stack.layer[layer]); X, X_kv, P_pos are shared. */
float *mha_tensor_data_layer(const struct mha_weights *w, const struct mha_acts *a, int layer,
                             enum mha_tensor t);
/* Does c's computation use t? X_kv only with m > 0, P_pos only with pos
 * learned, Q_rot and K_rot only with RoPE; every other tensor always. */
bool mha_tensor_used(const struct mha_config *c, enum mha_tensor t);

/* Configuration. */
struct mha_config mha_config_default(void);
/* MHA_OK, or MHA_EINVAL with msg naming the field, its value and what is allowed. */
enum mha_status mha_config_check(const struct mha_config *c, char *msg, size_t len);
/* The same rules with tokens allowed up to max_tokens (the planned forward's limit). */
enum mha_status mha_config_check_limit(const struct mha_config *c, int max_tokens,
                                       char *msg, size_t len);
/* Which kv head query head i reads: floor(i / (h/g)) (LLaMA repeat_kv). */
int mha_kv_head(const struct mha_config *c, int i);
/* Keys per query row, nk: m with cross-attention (m > 0), else n. */
int mha_keys(const struct mha_config *c);

/* Positions (position.c). The name as the command line, sessions and the
 * dump write it ("none", "learned", "sinusoidal", "rope"), and back (-1:
 * none of them). */
const char *mha_pos_name(enum mha_pos p);
int mha_pos_by_name(const char *name);
/* PE (n, d) of c, the matrix added to X: sinusoidal values at positions
 * pos_offset + t, P (pos) for learned, 0 for none and RoPE. pos: the
 * learned P (n, d), read only for learned (may be NULL otherwise). */
void mha_pos_encoding(const struct mha_config *c, const float *pos, float *pe);
/* RoPE on rows (nrows, heads*dk) with row stride ld: row r's head blocks
 * each have their column pairs (2i, 2i+1) rotated by angle
 * (pos_offset + first + r) * 10000^(-2i/dk), in place:
 *   (a, b) -> (a cos t - b sin t, a sin t + b cos t).
 * inverse: rotate by -t (the transpose: the backward's). dk even. */
void mha_rope_rows(const struct mha_config *c, float *rows, int nrows, int first, int heads, int ld,
                   bool inverse);
/* Row t of PE (d values), as mha_pos_encoding writes it. */
void mha_pos_encoding_row(const struct mha_config *c, const float *pos, int t, float *row);

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
/* SplitMix64 (Steele, Lea, Flood 2014): the next 64 bits of the stream
 * *state, the same on every machine (the seeded weights and generated
 * sequences draw from it). */
uint64_t mha_rand64(uint64_t *state);
/* Which wiring head still holds in W^Q and W^K: 0 previous token, 1 same
 * word, 2 first token, 3 next token; -1 when edited away (or never wired).
 * Its name, in full ("previous token") or brief ("prev"). */
int mha_wired_role(const struct mha_weights *w, const struct mha_config *c, int head);
const char *mha_wired_role_name(int role, bool brief);
void mha_weights_default_labels(struct mha_weights *w, const struct mha_config *c);
/* Layer l's projections and biases (0 <= l < MHA_MAX_LAYERS): layer 0 is
 * wq .. bo of w, layer l > 0 is w->upper[l - 1]. */
struct mha_layer_weights mha_weights_layer(const struct mha_weights *w, int l);
/* Reshape-safe copy: every cell that exists in both shapes keeps its value,
 * matched per head block for W^Q, W^K, W^V (columns) and W^O (rows); a
 * matrix whose width h*dk (g*dk) is unchanged is only regrouped into heads,
 * so each of its cells keeps its place. Cells new to dst keep what dst
 * already holds (the caller seeds them first). The biases go with their
 * matrices: b^Q with W^Q's columns, b^K and b^V with W^K's, b^O with d.
 * Every layer both shapes have carries its own W's and biases by the same
 * rule; X_kv (and its labels) keeps the rows and columns both have, P_pos
 * as X. */
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
/* The same for X_kv from kv_labels (m rows): a word has the same row in
 * both sequences. */
void mha_embed_kv_words(struct mha_weights *w, const struct mha_config *c, uint64_t seed);

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
/* The same for layer l's biases. */
struct mha_bias mha_bias_layer(const struct mha_weights *w, const struct mha_config *c, int l, int k);
/* b^Q, b^K, b^V, b^O ~ U(-0.5, 0.5) from their own stream of seed (X and
 * the W's keep theirs), every layer's. */
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
/* Layer 0 of c: PE, x_0 = X + PE, Q, K, V (from X_kv with m > 0), the
 * rotation (RoPE), S, P, O, Concat, Y and the stream x_1 = x_0 + Y. With
 * cfg.layers > 1 the later layers are mha_stack_forward's. */
void mha_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a);
/* The same with plain loops in double accumulators: the reference the tests trust. */
void mha_forward_naive(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a);

/*
 * The stack: cfg.layers layers on the residual stream,
 *   x_0 = X + PE,   x_l+1 = x_l + MHA_l(x_l)   (l = 0 .. L-1),
 * layer l with its own W^Q, W^K, W^V, W^O (and biases:
 * mha_weights_layer), K and V from X_kv in every layer with cross-
 * attention, RoPE applied in every layer. layer[0] is mha_forward's.
 */
struct mha_stack {
	int layers;                              /* cfg.layers when allocated */
	struct mha_acts layer[MHA_MAX_LAYERS];   /* layer l's intermediates: layer[l].xin = x_l,
	                                          * layer[l].stream = x_l+1 */
};
enum mha_status mha_stack_alloc(struct mha_stack *s, const struct mha_config *c);
void mha_stack_free(struct mha_stack *s);
void mha_stack_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s);
void mha_stack_forward_naive(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s);

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
 * With cross-attention (m > 0) j runs over the nk = m keys of X_kv: pad
 * names source tokens (the queries have none), the window compares the two
 * sequences' positions (both from 0), hide[i] bit j hides source token j,
 * and causal is refused by mha_config_check.
 *
 *     unsigned char keep[MHA_MAX_TOKENS];
 *     int kept = mha_mask_row(&cfg, i, NULL, keep);  // structural mask only
 *     mha_mask_row(&cfg, i, a.scores + (h_i*n + i)*nk, keep); // with head h_i's top-k
 */
/* Fills keep[0..nk) with 1 (kept) or 0 (masked) for query row i; s: that
 * row's nk scores for top-k, or NULL. Returns the number kept. */
int mha_mask_row(const struct mha_config *c, int i, const float *s, unsigned char *keep);
/* Is key t padding (a token of X, or of X_kv with cross-attention)? */
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
 * Positions: x_t + PE_t is projected; with RoPE q_t and k_t are rotated
 * at position t before k_t joins the cache (the cache holds rotated keys,
 * as LLaMA's does). Cross-attention (m > 0): the source is all there
 * before the first token, so the first prefill projects (and rotates)
 * X_kv's m rows into the cache once, and each step attends over all of
 * them; no causal mask is needed (it is refused). One layer: a stack
 * (cfg.layers > 1) is refused.
 *
 *     struct mha_decoder dec;
 *     mha_decoder_alloc(&dec, &cfg);        // cache room for cfg.n tokens
 *     mha_decoder_prefill(&dec, &cfg, &w, 3); // tokens 0..2 at once
 *     while (dec.len < cfg.n)
 *         mha_decoder_step(&dec, &cfg, &w);  // dec.y: the new token's Y row
 *     mha_decoder_free(&dec);
 */
struct mha_decoder {
	int len;                /* tokens done (in the cache, with self-attention) */
	int cap;                /* room: cfg.n tokens */
	int keys;               /* cache rows in use: len, or m with cross-attention */
	float *k, *v;           /* (nk, g*dk) the cache: rows 0..keys-1 are K, V of those tokens */
	float *x;               /* (d)      the last token's x_t + PE_t                  */
	float *q;               /* (h*dk)   the last token's query (rotated with RoPE)   */
	float *scores;          /* (h, nk)  the last token's scores, keys 0..keys-1     */
	float *weights;         /* (h, nk)  its softmax row (P_i[len-1, :])             */
	float *concat;          /* (h*dk)   its [o_1 .. o_h], zero blocks for heads off */
	float *y;               /* (d)      its output row                              */
	unsigned char *dead;    /* (h) 1 where the mask left the row no key             */
	void *mem;
};

/* What one step costs against recomputing the whole causal pass. With
 * cross-attention the keys are the m cached source rows (projected once,
 * not in a step): step t projects its query only and attends over m. */
struct mha_decode_cost {
	int64_t step_flops;      /* step t: projections 2d(h+2g)dk + scores and weighted sum
	                          * 4 h dk (t+1) + softmax 5 h (t+1) + output 2 h dk d */
	int64_t recompute_flops; /* mha_counts' dense total at n = t+1 */
	int64_t cache_values;    /* 2 g dk (t+1): K and V held after the step (2 g dk m) */
};

enum mha_status mha_decoder_alloc(struct mha_decoder *dec, const struct mha_config *c);
void mha_decoder_free(struct mha_decoder *dec);
/* Empty the cache (len = 0). */
void mha_decoder_reset(struct mha_decoder *dec);
/* Tokens len..len+count-1 at once (their K and V into the cache; with
 * cross-attention the source's, at the first call), then the last one's
 * outputs as a step. MHA_EINVAL (msg) unless causal (or cross-
 * attention), one layer, and the count fits. */
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
