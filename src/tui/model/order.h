/*
 * order.h - where order comes from, as keys of the workbench (order.c):
 * the encoding cycled, every position shifted, the tokens shuffled; each
 * says on the status line what it did to the numbers. APP_* flags.
 */
#ifndef ORDER_H
#define ORDER_H

#include "app.h"

unsigned order_encoding_next(struct app *app, int arg, int key); /* none, sinusoidal, learned, RoPE */
unsigned order_shift(struct app *app, int arg, int key);         /* pos_offset + arg: scores moved by */
unsigned order_shuffle(struct app *app, int arg, int key);       /* X's rows shuffled: Y's rows moved by */

#endif
