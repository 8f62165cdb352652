package control

import (
	"errors"
	"reflect"
	"testing"
)

func TestSendPageCacheRoundTripAndBound(t *testing.T) {
	ch, sup := socketpair(t)
	p := PageCache{Index: 3, Relations: []PageCacheRel{
		{Spc: 1663, DB: 5, Rel: 16384, CachedPages: 4096, Hits: 8192, Misses: 4100, Fills: 4096, Refills: 12},
		{Spc: 16500, DB: 16400, Rel: 16501, Misses: 77, Evictions: 900},
	}}
	if err := ch.SendPageCache(p); err != nil {
		t.Fatalf("SendPageCache: %v", err)
	}
	got, ok := supervisorRecv(t, sup).(PageCacheMessage)
	if !ok || !reflect.DeepEqual(got.PageCache, p) {
		t.Fatalf("PAGE_CACHE round trip: got %+v, want %+v", got, p)
	}

	// past the bound, the first MaxPageCacheRels go, in one message
	many := PageCache{Index: 0, Relations: make([]PageCacheRel, MaxPageCacheRels+5)}
	for i := range many.Relations {
		many.Relations[i] = PageCacheRel{Spc: 1663, DB: 5, Rel: uint32(20000 + i), CachedPages: uint64(1000 - i)}
	}
	msg := encodePageCache(many)
	if len(msg) > MaxMessage {
		t.Fatalf("a full PAGE_CACHE message is %d bytes, over the channel's %d", len(msg), MaxMessage)
	}
	if err := ch.SendPageCache(many); err != nil {
		t.Fatalf("SendPageCache of %d relations: %v", len(many.Relations), err)
	}
	full, ok := supervisorRecv(t, sup).(PageCacheMessage)
	if !ok || !reflect.DeepEqual(full.PageCache.Relations, many.Relations[:MaxPageCacheRels]) {
		t.Fatalf("got %d relations, want the first %d", len(full.PageCache.Relations), MaxPageCacheRels)
	}
}

func TestDecodePageCacheRejectsALengthThatDisagreesWithItsCount(t *testing.T) {
	msg := encodePageCache(PageCache{Index: 0, Relations: make([]PageCacheRel, 2)})
	for name, m := range map[string][]byte{
		"a relation cut off": msg[:len(msg)-1],
		"one relation short": msg[:len(msg)-pageCacheRelLen],
		"no head":            msg[:headerSize+4],
	} {
		fixed := append([]byte(nil), m...)
		fixed[8] = byte(len(fixed)) // header length: the payload is what is wrong
		fixed[9] = byte(len(fixed) >> 8)
		if _, err := DecodeServiceMessage(fixed); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}
