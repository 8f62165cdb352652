/*
 * codegen_to_char.h
 *
 * xPU code generator: to_char's date and time formats.
 */
#ifndef PGSTROM_CODEGEN_TO_CHAR_H
#define PGSTROM_CODEGEN_TO_CHAR_H

#include "postgres.h"
#include "lib/stringinfo.h"

extern bool cg_parse_to_char_format(const char *fmt, StringInfo out,
									char **reason);
extern int	cg_to_char_max_bytes(const char *fmt);

#endif							/* PGSTROM_CODEGEN_TO_CHAR_H */
