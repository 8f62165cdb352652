/*
 * codegen_regex.h
 *
 * xPU code generator: regular expressions the device evaluates as LIKE.
 */
#ifndef PGSTROM_CODEGEN_REGEX_H
#define PGSTROM_CODEGEN_REGEX_H

#include "postgres.h"
#include "nodes/primnodes.h"

extern Expr *cg_regex_as_like(Expr *pattern, char **reason);

#endif							/* PGSTROM_CODEGEN_REGEX_H */
