package protocol

import "testing"

// The sizes are the C compiler's; these pin them to the documented layout so
// a header edit that changes the wire format shows up here.
func TestLayoutFromHeader(t *testing.T) {
	cases := []struct {
		name      string
		got, want int
	}{
		{"HeaderSize", HeaderSize, 16},
		{"StatusReplySize", StatusReplySize, 48},
		{"ErrorPayloadSize", ErrorPayloadSize, 8 + 64 + 64 + 512},
		{"ErrorFileSize", ErrorFileSize, 64},
		{"ErrorFuncSize", ErrorFuncSize, 64},
		{"ErrorMessageSize", ErrorMessageSize, 512},
		{"offHdrRequestID", offHdrRequestID, 12},
		{"offStPoolUsed", offStPoolUsed, 16},
		{"JoinInnerSize", JoinInnerSize, 40},
		{"JoinInnerReplySize", JoinInnerReplySize, 24},
		{"offJiRowsOffset", offJiRowsOffset, 16 + 28},
		{"offJirBytes", offJirBytes, 16},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if Magic != 0x5047534d {
		t.Errorf("Magic = %#x", Magic)
	}
	if MaxLength != 1<<30 {
		t.Errorf("MaxLength = %d", MaxLength)
	}
	if TagJoinInner != 7 || JoinInnerMaxPiece != 64<<20 || JoinInnerBusy != 2 {
		t.Errorf("JOIN_INNER constants differ from pg_strom_proto.h: tag %d piece %d busy %d", TagJoinInner, JoinInnerMaxPiece, JoinInnerBusy)
	}
	if TagStatus != 4 || TagError != 66 || ErrCodeUnsupported != 2 {
		t.Errorf("constants differ from pg_strom_proto.h: status %d error %d unsupported %d", TagStatus, TagError, ErrCodeUnsupported)
	}
}

func TestHeaderIsLittleEndian(t *testing.T) {
	msg := EncodeRequest(TagStatus, 0x01020304, nil)
	want := []byte{0x4d, 0x53, 0x47, 0x50, 4, 0, 0, 0, 16, 0, 0, 0, 4, 3, 2, 1}
	if string(msg) != string(want) {
		t.Fatalf("status request bytes % x, want % x", msg, want)
	}
}

func TestTagString(t *testing.T) {
	if TagSuccessHalfway.String() != "SuccessHalfway" || Tag(999).String() != "Tag(999)" {
		t.Fatalf("Tag.String: %q %q", TagSuccessHalfway, Tag(999))
	}
}
