/*
 * pick.c - xorshift64* for the core's property tests (pick.h).
 */
#include "pick.h"

int pick_int(uint64_t *state, int lo, int hi)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return lo + (int)((*state * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)(hi - lo + 1));
}
