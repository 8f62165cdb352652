package querybuf

import (
	"errors"
	"testing"
)

func TestClaimLoadingBusyLoaded(t *testing.T) {
	tab := NewTable()
	key := Key{PlanID: 1, Kind: 3, Depth: 2}
	a, st := tab.Claim(key, func() any { return "loading" })
	if st != Loading || a.Value() != "loading" {
		t.Fatalf("first claim: %s %v", st, a.Value())
	}
	b, st := tab.Claim(key, func() any { t.Error("a busy claim made a value"); return nil })
	if st != Busy || b != a || b.Value() != "loading" {
		t.Fatalf("claim while loading: %s", st)
	}
	if other, st := tab.Claim(Key{PlanID: 1, Kind: 3, Depth: 1}, func() any { return 0 }); st != Loading || other == a {
		t.Fatalf("another depth: %s", st)
	}
	if err := tab.Publish(a, "built"); err != nil {
		t.Fatal(err)
	}
	if err := tab.Publish(a, "again"); err == nil {
		t.Fatal("published twice")
	}
	c, st := tab.Claim(key, nil)
	if st != Loaded || c != a || c.Value() != "built" {
		t.Fatalf("claim after publish: %s %v", st, c.Value())
	}
	if err := tab.Abandon(a); err == nil {
		t.Fatal("abandoned a published entry")
	}
	var freed int
	for i := 0; i < 2; i++ { // the loader's reference and c's
		if _, err := tab.Release(a, func(any) { freed++ }); err != nil {
			t.Fatal(err)
		}
	}
	if freed != 1 || tab.Len() != 1 {
		t.Fatalf("teardown ran %d times, %d entries left (want 1: the other depth)", freed, tab.Len())
	}
}

func TestAbandonLetsTheNextClaimLoad(t *testing.T) {
	tab := NewTable()
	key := Key{PlanID: 2}
	a, _ := tab.Claim(key, func() any { return 1 })
	if err := tab.Abandon(a); err != nil {
		t.Fatal(err)
	}
	if err := tab.Abandon(a); err == nil {
		t.Fatal("abandoned twice")
	}
	if _, err := tab.Release(a, nil); !errors.Is(err, ErrOverRelease) {
		t.Fatalf("release of an abandoned entry: %v", err)
	}
	if _, st := tab.Claim(key, func() any { return 2 }); st != Loading {
		t.Fatalf("claim after abandon: %s, want loading", st)
	}
}

func TestSettledClosesOnPublishAndAbandon(t *testing.T) {
	tab := NewTable()
	for _, publish := range []bool{true, false} {
		key := Key{PlanID: 3}
		a, _ := tab.Claim(key, func() any { return 1 })
		b, st := tab.Claim(key, nil)
		if st != Busy {
			t.Fatalf("second claim: %s, want busy", st)
		}
		select {
		case <-b.Settled():
			t.Fatal("settled before the load ended")
		default:
		}
		var err error
		if publish {
			err = tab.Publish(a, 2)
		} else {
			err = tab.Abandon(a)
		}
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-b.Settled():
		default:
			t.Fatalf("not settled after publish=%v", publish)
		}
		if publish {
			if _, err := tab.Release(a, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}
