/*
 * theme.h - colours by role, with monochrome fallbacks.
 *
 * Every view asks for a role (ROLE_TITLE, ROLE_SELECTED, a head, a heat
 * level), never for a colour, so one place decides what the terminal can
 * show: 256 colours (a colour-blind-safe, viridis-like heat ramp), 8 colours
 * (fewer heat levels plus glyph density), or none (NO_COLOR / --no-color /
 * a monochrome terminal: A_BOLD, A_DIM, A_REVERSE, A_UNDERLINE and glyphs).
 *
 * Call theme_init after newterm() (and start_color is done inside).
 */
#ifndef THEME_H
#define THEME_H

#include <stdbool.h>

#include <curses.h>

enum theme_role {
	ROLE_NORMAL, ROLE_TITLE, ROLE_DIM, ROLE_SELECTED, ROLE_TRACE, ROLE_CHANGED,
	ROLE_ERROR, ROLE_HINT, ROLE_STAGE, ROLE_STAGE_CURRENT,
	ROLE_MET,   /* a lesson goal that holds, lessons done: the tick */
	ROLE_MARK,  /* cells and heads a lesson step points at */
	ROLE_HEAD_0 /* .. ROLE_HEAD_0 + 7 */,
	ROLE_COUNT = ROLE_HEAD_0 + 8
};

enum theme_depth { THEME_MONO, THEME_8, THEME_256 };

enum { THEME_HEAT_MAX = 10 }; /* no depth has more heat levels than this */

/* Picks the depth from has_colors(), COLORS and no_color (the caller folds
 * NO_COLOR into no_color), and the glyph set from the locale's codeset.
 * May be called again (e.g. after a test changes the locale). */
void theme_init(bool no_color);
enum theme_depth theme_depth(void);
/* The locale's codeset is UTF-8 (nl_langinfo(CODESET)), as of theme_init. */
bool theme_utf8(void);

/* Attributes including COLOR_PAIR; A_REVERSE / A_BOLD / ... in mono. */
attr_t theme_attr(enum theme_role r);
/* ROLE_HEAD_0 + head % 8 (mono: alternately A_BOLD and A_UNDERLINE). */
attr_t theme_head_attr(int head);

/* Distinct heat levels at this depth (>= 2, <= THEME_HEAT_MAX). */
int theme_heat_levels(void);
/* 0..levels-1 for v in [lo, hi], clamped outside (+inf -> top); lo >= hi,
 * NaN, or lo / hi not finite -> 0 (the caller marks non-finite values). */
int theme_heat_level(float v, float lo, float hi);
attr_t theme_heat_attr(int level);
/* A glyph whose density rises with the level, so the ramp reads without
 * colour: UTF-8 blocks (" ░▒▓█") or ASCII (" .:-=+*#%@") when the locale
 * is not UTF-8. A NUL-terminated string of one display cell. */
const char *theme_heat_glyph(int level);
/* The same level on the ASCII ramp whatever the locale: for a cell drawn in
 * reverse video (the cursor), where a solid block would read as empty. */
char theme_heat_ascii(int level);
/* The terminal colour of a heat level: an xterm-256 index, a COLOR_*
 * constant at 8 colours, -1 in monochrome. */
short theme_heat_colour(int level);
/* The mark of a masked cell (a -inf score, a weight that is 0 because of
 * the mask): "\u00d7" in UTF-8, "x" in ASCII; never a heat glyph, so it
 * cannot be read as a small value. Drawn in ROLE_DIM. */
const char *theme_masked_glyph(void);

/* Draw s at (y, x) with attributes a, at most width display columns and
 * never past the window's right edge (no wrapping); multibyte text is
 * decoded per the locale, a byte it cannot show becomes '?'. Returns the
 * columns drawn. The one clipped-text primitive of the drawing modules. */
int theme_addstr(WINDOW *win, int y, int x, int width, const char *s, attr_t a);

/* Tests: fn is called with (y, x, width, s) whenever theme_addstr cuts a
 * text (anything but blanks left over); NULL (the program) stops it. */
typedef void (*theme_cut_fn)(int y, int x, int width, const char *s);
void theme_watch_cuts(theme_cut_fn fn);

/* The longest start of s that takes at most cols display columns (wcwidth;
 * a wide character that does not fit whole is left out, an invalid byte
 * counts as the one '?' theme_addstr shows) into out (len bytes), on a
 * character boundary; with pad_left, spaces before it up to cols (a right-
 * aligned header). Returns the display columns of the text (padding too). */
int theme_cut(char *out, size_t len, const char *s, int cols, bool pad_left);

#endif
