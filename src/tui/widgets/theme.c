/*
 * theme.c - what the terminal can show, decided once: colour depth, colour
 * pairs for every role, the heat ramp and its glyphs, UTF-8 or ASCII.
 *
 * The heat ramp is viridis approximated in the xterm 6x6x6 cube (dark
 * purple -> blue -> teal -> green -> yellow): perceptually ordered and
 * readable with the common colour-vision deficiencies. Heads get the
 * Okabe-Ito qualitative palette for the same reason. Each heat level also
 * has a glyph of rising density, so the ramp reads in monochrome, on a
 * projector that washes colours out, and in a screenshot pasted as text.
 *
 * It does not draw views, and it does not read NO_COLOR: the caller folds
 * the environment into theme_init's argument.
 */
#include "theme.h"

#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

enum { PAIR_ROLE_0 = 1, PAIR_HEAT_0 = PAIR_ROLE_0 + ROLE_COUNT };

/* viridis-like in the xterm 6x6x6 cube: purple, blue-violet, blue, sky,
 * teal, teal-green, green, light green, yellow-green, yellow. Viridis
 * rounded to the cube (53 54 60 24 ...) starts with four dark blues that
 * cannot be told apart on a dark background; these rise in lightness
 * (CIELAB L* 28 46 57 66 65 64 65 79 81 97) and each step is at least
 * 22 CIE76 units from the next (tests/tui/test_theme.c checks it). */
static const short heat_256[] = { 55, 62, 68, 38, 37, 36, 71, 113, 148, 226 };
/* the same order in the 8 ANSI colours: purple, blue, teal, green, yellow */
static const short heat_8[] = { COLOR_MAGENTA, COLOR_BLUE, COLOR_CYAN, COLOR_GREEN, COLOR_YELLOW };
enum { HEAT_MONO_LEVELS = 5 };

/* Okabe-Ito: orange, sky blue, bluish green, yellow, blue, vermillion,
 * reddish purple, grey. */
static const short head_256[8] = { 214, 75, 36, 227, 25, 166, 175, 250 };
static const short head_8[8] = { COLOR_YELLOW, COLOR_CYAN, COLOR_GREEN, COLOR_MAGENTA,
                                 COLOR_BLUE, COLOR_RED, COLOR_WHITE, COLOR_YELLOW };

/* the lowest shade is a dot, never blank: a weight of 1e-20 is there,
 * and blank is a masked cell's (its own mark on blanks) */
static const char *const glyphs_utf8[] = { "\u00b7", "\u2591", "\u2592", "\u2593", "\u2588" };
static const char *const glyphs_ascii[] = { ".", ",", ":", "-", "=", "+", "*", "#", "%", "@" };
#define N_UTF8 ((int)(sizeof glyphs_utf8 / sizeof glyphs_utf8[0]))
#define N_ASCII ((int)(sizeof glyphs_ascii / sizeof glyphs_ascii[0]))

static struct {
	enum theme_depth depth;
	bool utf8;
	int heat_levels;
	attr_t role[ROLE_COUNT];
	attr_t heat[THEME_HEAT_MAX];
} theme = { THEME_MONO, false, HEAT_MONO_LEVELS, { 0 }, { 0 } };

/* Role attributes per depth: a colour (-1: none) and the attributes that go
 * with it; mono uses the attributes of the last column alone. */
struct role_style {
	short fg_256, fg_8;
	attr_t with_colour, mono;
};

static const struct role_style role_styles[ROLE_HEAD_0] = {
	[ROLE_NORMAL]        = { -1, -1, A_NORMAL, A_NORMAL },
	[ROLE_TITLE]         = { 117, COLOR_CYAN, A_BOLD, A_BOLD },
	[ROLE_DIM]           = { 244, -1, A_DIM, A_DIM },
	[ROLE_SELECTED]      = { -1, -1, A_REVERSE | A_BOLD, A_REVERSE | A_BOLD },
	[ROLE_TRACE]         = { 222, COLOR_YELLOW, A_UNDERLINE, A_UNDERLINE },
	[ROLE_CHANGED]       = { 114, COLOR_GREEN, A_BOLD, A_BOLD },
	[ROLE_ERROR]         = { 203, COLOR_RED, A_BOLD, A_BOLD | A_UNDERLINE },
	[ROLE_HINT]          = { 109, COLOR_CYAN, A_NORMAL, A_DIM },
	[ROLE_STAGE]         = { 250, -1, A_NORMAL, A_NORMAL },
	[ROLE_STAGE_CURRENT] = { -1, -1, A_REVERSE | A_BOLD, A_REVERSE | A_BOLD },
	[ROLE_MET]           = { 114, COLOR_GREEN, A_BOLD, A_BOLD },
	/* bold and underlined in pale yellow: apart from the trace (underline only) and the head colours */
	[ROLE_MARK]          = { 229, COLOR_YELLOW, A_BOLD | A_UNDERLINE, A_BOLD | A_UNDERLINE },
};

/* Pair number p with foreground fg on the terminal's own background;
 * returns its attribute, or 0 when fg is -1 or pairs ran out. */
static attr_t pair_make(short p, short fg, short bg)
{
	if (fg < 0 || p >= COLOR_PAIRS || init_pair(p, fg, bg) == ERR)
		return 0;
	return COLOR_PAIR(p);
}

void theme_init(bool no_color)
{
	const char *cs = nl_langinfo(CODESET);
	theme.utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));

	theme.depth = THEME_MONO;
	if (!no_color && has_colors() && start_color() != ERR)
		theme.depth = COLORS >= 256 ? THEME_256 : COLORS >= 8 ? THEME_8 : THEME_MONO;
	/* -1 is "the terminal's background"; without use_default_colors, black */
	short bg = theme.depth != THEME_MONO && use_default_colors() == OK ? -1 : COLOR_BLACK;

	for (int r = 0; r < ROLE_COUNT; r++) {
		bool head = r >= ROLE_HEAD_0;
		int i = r - ROLE_HEAD_0;
		short fg = -1;
		attr_t extra, mono;
		if (head) {
			fg = theme.depth == THEME_256 ? head_256[i] : head_8[i];
			/* 8 colours have only 7 for heads: the 8th repeats one, underlined */
			extra = theme.depth == THEME_8 && i == 7 ? A_UNDERLINE : A_NORMAL;
			mono = i % 2 ? A_UNDERLINE : A_BOLD;
		} else {
			const struct role_style *s = &role_styles[r];
			fg = theme.depth == THEME_256 ? s->fg_256 : s->fg_8;
			extra = s->with_colour;
			mono = s->mono;
		}
		if (theme.depth == THEME_MONO)
			theme.role[r] = mono;
		else
			theme.role[r] = extra | pair_make((short)(PAIR_ROLE_0 + r), fg, bg);
	}

	switch (theme.depth) {
	case THEME_256:
		theme.heat_levels = (int)(sizeof heat_256 / sizeof heat_256[0]);
		for (int l = 0; l < theme.heat_levels; l++)
			theme.heat[l] = pair_make((short)(PAIR_HEAT_0 + l), heat_256[l], bg);
		break;
	case THEME_8:
		theme.heat_levels = (int)(sizeof heat_8 / sizeof heat_8[0]);
		for (int l = 0; l < theme.heat_levels; l++)
			theme.heat[l] = pair_make((short)(PAIR_HEAT_0 + l), heat_8[l], bg)
			              | (l == theme.heat_levels - 1 ? A_BOLD : A_NORMAL);
		break;
	case THEME_MONO:
		/* dim, dim, normal, normal, bold: brightness rises with the glyphs */
		theme.heat_levels = HEAT_MONO_LEVELS;
		for (int l = 0; l < theme.heat_levels; l++)
			theme.heat[l] = l < 2 ? A_DIM : l < HEAT_MONO_LEVELS - 1 ? A_NORMAL : A_BOLD;
		break;
	}
}

enum theme_depth theme_depth(void) { return theme.depth; }
bool theme_utf8(void) { return theme.utf8; }

attr_t theme_attr(enum theme_role r)
{
	return r >= 0 && r < ROLE_COUNT ? theme.role[r] : A_NORMAL;
}

attr_t theme_head_attr(int head)
{
	int i = head % 8;
	return theme.role[ROLE_HEAD_0 + (i < 0 ? i + 8 : i)];
}

int theme_heat_levels(void) { return theme.heat_levels; }

int theme_heat_level(float v, float lo, float hi)
{
	if (isnan(v) || !isfinite(lo) || !isfinite(hi) || !(hi > lo))
		return 0;
	/* level = floor((v - lo) / (hi - lo) * levels), in double: hi - lo may
	 * overflow float for scores near the float range */
	double t = ((double)v - lo) / ((double)hi - lo) * theme.heat_levels;
	if (!(t >= 0))
		return 0;
	return t >= theme.heat_levels ? theme.heat_levels - 1 : (int)t;
}

static int level_clamp(int level)
{
	return level < 0 ? 0 : level >= theme.heat_levels ? theme.heat_levels - 1 : level;
}

attr_t theme_heat_attr(int level) { return theme.heat[level_clamp(level)]; }

/* Level l of L onto glyph g of G, rounded, with only level 0 on the
 * lowest glyph (the dot): g = round(l (G-1) / (L-1)), at least 1 when
 * l > 0. */
static int glyph_index(int level, int n_glyphs)
{
	int l = level_clamp(level), top = theme.heat_levels - 1;
	if (l == 0 || top <= 0)
		return 0;
	int g = (2 * l * (n_glyphs - 1) + top) / (2 * top);
	return g < 1 ? 1 : g;
}

const char *theme_heat_glyph(int level)
{
	return theme.utf8 ? glyphs_utf8[glyph_index(level, N_UTF8)]
	                  : glyphs_ascii[glyph_index(level, N_ASCII)];
}

char theme_heat_ascii(int level) { return glyphs_ascii[glyph_index(level, N_ASCII)][0]; }

short theme_heat_colour(int level)
{
	switch (theme.depth) {
	case THEME_256: return heat_256[level_clamp(level)];
	case THEME_8: return heat_8[level_clamp(level)];
	default: return -1;
	}
}

const char *theme_masked_glyph(void) { return theme.utf8 ? "\u00d7" : "x"; }

/* The tests' watch on text cut short (theme_watch_cuts); NULL in the program. */
static theme_cut_fn cut_watch;

void theme_watch_cuts(theme_cut_fn fn)
{
	cut_watch = fn;
}

/* Whether what is left of s is blank (padding cut is no cut). */
static bool rest_blank(const char *s)
{
	while (*s == ' ')
		s++;
	return !*s;
}

int theme_addstr(WINDOW *win, int y, int x, int width, const char *s, attr_t a)
{
	const char *whole = s;
	int my, mx;
	getmaxyx(win, my, mx);
	if (!s || y < 0 || y >= my || x < 0)
		return 0;
	int end = x + width < mx ? x + width : mx;
	int cx = x;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	size_t left = strlen(s);
	while (left > 0) {
		wchar_t wc[2] = { L'?', 0 };
		size_t used = mbrtowc(&wc[0], s, left, &st);
		int w;
		if (used == (size_t)-1 || used == (size_t)-2 || used == 0) {
			/* not a character in this locale: show one '?' per byte */
			memset(&st, 0, sizeof st);
			wc[0] = L'?';
			used = 1;
			w = 1;
		} else if ((w = wcwidth(wc[0])) < 0) {
			wc[0] = L'?';
			w = 1;
		} else if (w == 0) {
			/* a combining mark: dropped, labels are short enough without */
			s += used;
			left -= used;
			continue;
		}
		if (cx + w > end) {
			if (cut_watch && !rest_blank(s))
				cut_watch(y, x, width, whole);
			break;
		}
		cchar_t cc;
		setcchar(&cc, wc, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
		mvwadd_wch(win, y, cx, &cc);
		cx += w;
		s += used;
		left -= used;
	}
	return cx - x;
}

int theme_cut(char *out, size_t len, const char *s, int cols, bool pad_left)
{
	mbstate_t st;
	memset(&st, 0, sizeof st);
	size_t at = 0, left = s ? strlen(s) : 0;
	int used = 0;
	while (left > 0) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s + at, left, &st);
		int w = 1;
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof st);
			n = 1; /* theme_addstr shows such a byte as one '?' */
		} else if ((w = wcwidth(wc)) < 0) {
			w = 1;
		}
		if (used + w > cols || at + n >= len)
			break;
		used += w;
		at += n;
		left -= n;
	}
	int pad = pad_left && cols > used ? cols - used : 0;
	if (len > 0 && (size_t)pad + at >= len)
		pad = (int)(len - 1 - at);
	snprintf(out, len, "%*s%.*s", pad, "", (int)at, s ? s : "");
	return used + pad;
}
