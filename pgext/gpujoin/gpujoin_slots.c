/*-------------------------------------------------------------------------
 *
 * gpujoin_slots.c
 *		GpuJoin's inner key slots: PostgreSQL Datums in the XpuGroupKey slot
 *		encoding of pg_strom_xpu.h, the exact mirror of what
 *		gpupreagg_key_datum() decodes and what the device's
 *		xpu_join_slot_datum() reads.
 *
 *	byte 0		1 for NULL (the rest zero), else 0
 *	integers, DATE, TIMESTAMP(TZ), BOOL: int64 at +8 (sign-extended), width 16
 *	FLOAT4, FLOAT8: the float at +8, width 16
 *	NUMERIC: int32 scale at +4, int128 at +16, width 32
 *	TEXT, VARCHAR, BPCHAR: int32 length at +4, the detoasted bytes from +8;
 *		width 8 + the depth's longest value, rounded up to 16
 *
 * A value the device cannot hold (a numeric NaN, infinity or of 38 digits
 * or more, a text longer than GPUJOIN_MAX_TEXT_KEY) is reported, and the
 * whole node then runs on the CPU: dropping the row would lose matches.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "utils/builtins.h"
#include "utils/date.h"

#include "codegen/codegen.h"
#include "codegen/codegen_values.h"
#include "gpujoin/gpujoin.h"

int
gpujoin_key_xtype(Oid typid)
{
	return pgstrom_codegen_xpu_type(typid);
}

static inline bool xtype_is_text(int t);

/* a device type with a slot encoding (gpujoin_encode_slot) */
bool
gpujoin_slot_encodable(int xtype)
{
	switch (xtype)
	{
		case XPU_TYPE_BOOL:
		case XPU_TYPE_INT2:
		case XPU_TYPE_INT4:
		case XPU_TYPE_INT8:
		case XPU_TYPE_DATE:
		case XPU_TYPE_TIMESTAMP:
		case XPU_TYPE_TIMESTAMPTZ:
		case XPU_TYPE_FLOAT4:
		case XPU_TYPE_FLOAT8:
		case XPU_TYPE_NUMERIC:
			return true;
		default:
			return xtype_is_text(xtype);
	}
}

static inline bool
xtype_is_int(int t)
{
	return t == XPU_TYPE_INT2 || t == XPU_TYPE_INT4 || t == XPU_TYPE_INT8;
}

static inline bool
xtype_is_text(int t)
{
	return t == XPU_TYPE_TEXT || t == XPU_TYPE_VARCHAR || t == XPU_TYPE_BPCHAR;
}

/*
 * As the device's xpu_join_types_joinable: the integer family in any mix,
 * text with varchar, else the same type.  BOOL keys are not offered.
 */
bool
gpujoin_types_joinable(int outer_xtype, int inner_xtype)
{
	if (outer_xtype <= XPU_TYPE_INVALID || outer_xtype >= XPU_TYPE__COUNT ||
		inner_xtype <= XPU_TYPE_INVALID || inner_xtype >= XPU_TYPE__COUNT ||
		outer_xtype == XPU_TYPE_BOOL || inner_xtype == XPU_TYPE_BOOL)
		return false;
	if (xtype_is_int(outer_xtype) && xtype_is_int(inner_xtype))
		return true;
	if ((outer_xtype == XPU_TYPE_TEXT || outer_xtype == XPU_TYPE_VARCHAR) &&
		(inner_xtype == XPU_TYPE_TEXT || inner_xtype == XPU_TYPE_VARCHAR))
		return true;
	return outer_xtype == inner_xtype;
}

/* the slot of a text key whose longest value has longest bytes */
uint32
gpujoin_text_slot_width(uint32 longest)
{
	return TYPEALIGN(16, 8 + longest);
}

/*
 * Whether the device can hold value (not NULL) in a slot: false with *why
 * otherwise.  For text types *text_len is its length, which sizes the slot.
 */
bool
gpujoin_slot_length(int xtype, Datum value, uint32 *text_len, const char **why)
{
	*text_len = 0;
	if (xtype == XPU_TYPE_NUMERIC)
	{
		XpuNumericConst nc;

		return cg_encode_numeric(value, &nc, why);
	}
	if (xtype_is_text(xtype))
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(value);
		Size		len = VARATT_IS_EXTENDED(v) ?
			toast_raw_datum_size(value) - VARHDRSZ : VARSIZE(v) - VARHDRSZ;

		if (len > GPUJOIN_MAX_TEXT_KEY)
		{
			*why = "an inner text key longer than a device key slot";
			return false;
		}
		*text_len = (uint32) len;
	}
	return true;
}

/*
 * Writes the slot of width bytes at slot (zeroed by the caller); the value
 * passed gpujoin_slot_length() and fits the width.
 */
void
gpujoin_encode_slot(char *slot, uint32 width, int xtype, Datum value,
					bool isnull)
{
	int64		i64 = 0;

	if (isnull)
	{
		slot[0] = 1;
		return;
	}
	switch (xtype)
	{
		case XPU_TYPE_BOOL:
			i64 = DatumGetBool(value) ? 1 : 0;
			break;
		case XPU_TYPE_INT2:
			i64 = DatumGetInt16(value);
			break;
		case XPU_TYPE_INT4:
			i64 = DatumGetInt32(value);
			break;
		case XPU_TYPE_DATE:
			i64 = DatumGetDateADT(value);
			break;
		case XPU_TYPE_INT8:
		case XPU_TYPE_TIMESTAMP:
		case XPU_TYPE_TIMESTAMPTZ:
			i64 = DatumGetInt64(value);
			break;
		case XPU_TYPE_FLOAT4:
			{
				float4		f = DatumGetFloat4(value);

				memcpy(slot + 8, &f, sizeof(f));
				return;
			}
		case XPU_TYPE_FLOAT8:
			{
				float8		f = DatumGetFloat8(value);

				memcpy(slot + 8, &f, sizeof(f));
				return;
			}
		case XPU_TYPE_NUMERIC:
			{
				XpuNumericConst nc;
				const char *why;
				int32		scale;

				if (!cg_encode_numeric(value, &nc, &why))
					elog(ERROR, "GpuJoin: numeric key the device cannot hold: %s", why);
				scale = nc.scale;
				memcpy(slot + 4, &scale, sizeof(scale));
				memcpy(slot + 16, &nc.lo, sizeof(nc.lo));
				memcpy(slot + 24, &nc.hi, sizeof(nc.hi));
				return;
			}
		case XPU_TYPE_TEXT:
		case XPU_TYPE_VARCHAR:
		case XPU_TYPE_BPCHAR:
			{
				struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
				int32		len = VARSIZE_ANY_EXHDR(v);

				if ((uint32) len > width - 8)
					elog(ERROR, "GpuJoin: text key of %d bytes in a slot of %u", len, width);
				memcpy(slot + 4, &len, sizeof(len));
				memcpy(slot + 8, VARDATA_ANY(v), len);
				if ((Pointer) v != DatumGetPointer(value))
					pfree(v);
				return;
			}
		default:
			elog(ERROR, "GpuJoin: key of device type %d", xtype);
	}
	memcpy(slot + 8, &i64, sizeof(i64));
}
