/*
 * codegen_types.c
 *
 * xPU code generator: mapping of PostgreSQL types to XpuType, the names of
 * device types and opcodes, and the casts the device supports.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/lsyscache.h"

#include "codegen/codegen_types.h"

static const struct
{
	const char *name;
	Oid			oid;
} xtype_table[XPU_TYPE__COUNT] = {
	[XPU_TYPE_INVALID] = {"invalid", InvalidOid},
#define XPU_TYPE_ENTRY(name, oid, len) [XPU_TYPE_##name] = {#name, oid},
	XPU_TYPE_LIST(XPU_TYPE_ENTRY)
#undef XPU_TYPE_ENTRY
};

StaticAssertDecl(BOOLOID == 16 && INT2OID == 21 && INT4OID == 23 &&
				 INT8OID == 20 && FLOAT4OID == 700 && FLOAT8OID == 701 &&
				 NUMERICOID == 1700 && DATEOID == 1082 &&
				 TIMESTAMPOID == 1114 && TIMESTAMPTZOID == 1184 &&
				 TEXTOID == 25 && VARCHAROID == 1043 && BPCHAROID == 1042,
				 "XPU_TYPE_LIST type OIDs disagree with pg_type.h");

static const char *const opcode_names[XPU_OP__COUNT] = {
	[XPU_OP_INVALID] = "INVALID",
#define XPU_OPCODE_NAME(name, nargs, sig) [XPU_OP_##name] = #name,
	XPU_OPCODE_LIST(XPU_OPCODE_NAME)
#undef XPU_OPCODE_NAME
};

static XpuType
xtype_of_base_oid(Oid typid)
{
	int			i;

	for (i = 1; i < XPU_TYPE__COUNT; i++)
	{
		if (xtype_table[i].oid == typid)
			return (XpuType) i;
	}
	return XPU_TYPE_INVALID;
}

/*
 * The XpuType of a PostgreSQL type, or XPU_TYPE_INVALID; an enum is an
 * INT4 (cg_type_is_enum).  A domain is its base type: a value of it (a column, a parameter) passed the domain's
 * checks when it was stored or coerced, and the operators and functions
 * over it are the base type's (the parser relabels the value).  A coercion
 * to a domain (CoerceToDomain), which would have to run the checks, is
 * refused as an expression node.
 */
XpuType
cg_xtype_of_oid(Oid typid)
{
	XpuType		xtype = xtype_of_base_oid(typid);

	if (xtype == XPU_TYPE_INVALID && OidIsValid(typid))
	{
		Oid			base = getBaseType(typid);

		if (base != typid)
			xtype = xtype_of_base_oid(base);
		if (xtype == XPU_TYPE_INVALID && type_is_enum(base))
			xtype = XPU_TYPE_INT4;
	}
	return xtype;
}

/*
 * Is typid (or its domain's base) an enum?  The device holds an enum's
 * value, the OID of its label, as an INT4, which only equality and
 * grouping may read: its order is the labels' sort order, and its text
 * the label.
 */
bool
cg_type_is_enum(Oid typid)
{
	return OidIsValid(typid) && type_is_enum(getBaseType(typid));
}

const char *
cg_xtype_name(int xtype)
{
	if (xtype >= 0 && xtype < XPU_TYPE__COUNT)
		return xtype_table[xtype].name;
	return "???";
}

const char *
cg_opcode_name(int opcode)
{
	if (opcode >= 0 && opcode < XPU_OP__COUNT)
		return opcode_names[opcode];
	return "???";
}

static inline bool
xtype_is_int(XpuType t)
{
	return t == XPU_TYPE_INT2 || t == XPU_TYPE_INT4 || t == XPU_TYPE_INT8;
}

static inline bool
xtype_is_float(XpuType t)
{
	return t == XPU_TYPE_FLOAT4 || t == XPU_TYPE_FLOAT8;
}

/* the CAST pairs of pg_strom_xpu.h */
bool
cg_cast_supported(XpuType from, XpuType to)
{
	if (from == to)
		return false;
	if (xtype_is_int(from))
		return xtype_is_int(to) || xtype_is_float(to) || to == XPU_TYPE_NUMERIC;
	if (xtype_is_float(from))
		return xtype_is_float(to) || xtype_is_int(to) || to == XPU_TYPE_NUMERIC;
	if (from == XPU_TYPE_NUMERIC)
		return xtype_is_int(to) || xtype_is_float(to);
	if (from == XPU_TYPE_DATE)
		return to == XPU_TYPE_TIMESTAMP;
	if (from == XPU_TYPE_TIMESTAMP)
		return to == XPU_TYPE_DATE;
	if (from == XPU_TYPE_VARCHAR)
		return to == XPU_TYPE_TEXT;
	if (from == XPU_TYPE_TEXT)
		return to == XPU_TYPE_VARCHAR;
	if (from == XPU_TYPE_BPCHAR)
		return to == XPU_TYPE_TEXT;
	return false;
}

int
cg_align_attr(char attalign)
{
	switch (attalign)
	{
		case TYPALIGN_CHAR:
			return 1;
		case TYPALIGN_SHORT:
			return 2;
		case TYPALIGN_INT:
			return 4;
		case TYPALIGN_DOUBLE:
			return 8;
	}
	elog(ERROR, "unexpected attalign '%c'", attalign);
	return 0;					/* keep compiler quiet */
}
