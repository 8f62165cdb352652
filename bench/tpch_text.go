package main

import (
	"fmt"
	"strings"
)

// TPC-H's comments (clause 4.2.2.10) are substrings of a pool of
// pseudo-English sentences that dbgen builds from a small grammar. The pool
// here is built the same way, from the same kinds of words, by a fixed
// generator, and cut into chunks: a comment is a substring of one chunk,
// both picked by a hash of the row, so it stays a pure function of the row
// number. Chunks rather than one long string because substr() walks a
// UTF8 text character by character up to its start.
//
// The words leave out "special" and every capitalized word, so that the
// patterns Q13 and Q16 look for ('%special%requests%',
// '%Customer%Complaints%') occur exactly where the generator puts them
// (tpchOrderComment, tpchSupplierComment), at the spec's frequencies.

const (
	tpchChunks   = 64
	tpchChunkLen = 512 // longest comment (ps_comment) is 198
)

var (
	tpchNouns = strings.Split("foxes,ideas,theodolites,pinto beans,instructions,dependencies,excuses,platelets,"+
		"asymptotes,courts,dolphins,multipliers,sauternes,warthogs,frets,dinos,attainments,somas,patterns,forges,"+
		"braids,hockey players,frays,warhorses,dugouts,notornis,epitaphs,pearls,tithes,waters,orbits,gifts,sheaves,"+
		"depths,sentiments,decoys,realms,pains,grouches,escapades,packages,requests,accounts,deposits,"+
		"packages,requests,accounts,deposits", ",")
	tpchVerbs = strings.Split("sleep,wake,are,cajole,haggle,nag,use,boost,affix,detect,integrate,maintain,nod,was,"+
		"lose,sublate,solve,thrash,promise,engage,hinder,print,x-ray,breach,eat,grow,impress,mold,poach,serve,run,"+
		"dazzle,snooze,doze,unwind,kindle,play,hang,believe,doubt", ",")
	tpchAdjectives = strings.Split("furious,sly,careful,blithe,quick,fluffy,slow,quiet,ruthless,thin,close,dogged,"+
		"daring,brave,stealthy,permanent,enticing,idle,busy,regular,final,ironic,even,bold,silent,pending,express,"+
		"unusual,regular,final,ironic,even", ",")
	tpchAdverbs = strings.Split("sometimes,always,never,furiously,slyly,carefully,blithely,quickly,fluffily,"+
		"slowly,quietly,ruthlessly,thinly,closely,doggedly,daringly,bravely,stealthily,permanently,enticingly,"+
		"idly,busily,regularly,finally,ironically,evenly,boldly,silently", ",")
	tpchPrepositions = strings.Split("about,above,according to,across,after,against,along,alongside of,among,"+
		"around,at,atop,before,behind,beneath,beside,besides,between,beyond,by,despite,during,except,for,from,"+
		"in place of,inside,instead of,into,near,of,on,outside,over,past,since,through,throughout,to,toward,"+
		"under,until,up,upon,without,with,within", ",")
	tpchAuxiliaries = strings.Split("do,may,might,shall,will,would,can,could,should,ought to,must,will have to,"+
		"shall have to,could have to,should have to,must have to,need to,try to", ",")
	tpchTerminators = []string{".", ".", ".", ";", ":", "?", "!", "--"}
)

// splitmix64: a generator whose output is fixed by its definition, unlike
// math/rand's, so that the pool (and with it the load's fingerprint) stays
// the same across Go releases.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s *splitmix64) word(words []string) string { return words[s.next()%uint64(len(words))] }

// sentence follows dbgen's grammar: noun phrase, verb phrase, sometimes a
// prepositional phrase, a terminator.
func (s *splitmix64) sentence() string {
	np := func() string {
		switch s.next() % 4 {
		case 0:
			return s.word(tpchNouns)
		case 1:
			return s.word(tpchAdjectives) + " " + s.word(tpchNouns)
		case 2:
			return s.word(tpchAdjectives) + ", " + s.word(tpchAdjectives) + " " + s.word(tpchNouns)
		}
		return s.word(tpchAdverbs) + " " + s.word(tpchAdjectives) + " " + s.word(tpchNouns)
	}
	vp := func() string {
		switch s.next() % 4 {
		case 0:
			return s.word(tpchVerbs)
		case 1:
			return s.word(tpchAuxiliaries) + " " + s.word(tpchVerbs)
		case 2:
			return s.word(tpchVerbs) + " " + s.word(tpchAdverbs)
		}
		return s.word(tpchAuxiliaries) + " " + s.word(tpchVerbs) + " " + s.word(tpchAdverbs)
	}
	out := np() + " " + vp()
	if s.next()%2 == 0 {
		out += " " + s.word(tpchPrepositions) + " the " + np()
	}
	return out + s.word(tpchTerminators)
}

// tpchPool is the chunks of the pool, as a SQL text[] constant.
var tpchPool = func() string {
	s := splitmix64(20250101)
	var b strings.Builder
	for b.Len() < tpchChunks*tpchChunkLen {
		b.WriteString(s.sentence())
		b.WriteString(" ")
	}
	text := b.String()
	chunks := make([]string, tpchChunks)
	for k := range chunks {
		chunks[k] = text[k*tpchChunkLen : (k+1)*tpchChunkLen]
	}
	return sqlArray(chunks)
}()

// tpchSubstr is n characters (SQL int4 expression, at most tpchChunkLen)
// of the pool, the chunk and start picked by the hash h.
func tpchSubstr(h, n string) string {
	return fmt.Sprintf("substr(%s[%s %% %d + 1], (1 + %s / %d %% (%d - %s + 1))::int4, %s)",
		tpchPool, h, tpchChunks, h, tpchChunks, tpchChunkLen, n, n)
}

// tpchText is a comment of lo..hi characters (uniform) for the int8 key x.
func tpchText(x string, seed, lo, hi int) string {
	return tpchSubstr(hashOf(x, seed), tpchTextLen(x, seed, lo, hi))
}

func tpchTextLen(x string, seed, lo, hi int) string {
	return fmt.Sprintf("(%d + %s %% %d)::int4", lo, hashOf(x, seed+1000), hi-lo+1)
}

// tpchTextWith is a comment of lo..hi characters that holds word1, then
// word2 further on, with pool text before, between and after them (the
// lengths of the three pieces picked by the hash); lo must leave room for
// both words and their spaces.
func tpchTextWith(x string, seed, lo, hi int, word1, word2 string) string {
	n := tpchTextLen(x, seed, lo, hi)
	free := fmt.Sprintf("(%s - %d)", n, len(word1)+len(word2)+4)
	a := fmt.Sprintf("(%s %% (%s + 1))::int4", hashOf(x, seed+2000), free)
	rest := fmt.Sprintf("(%s - %s)", free, a)
	b := fmt.Sprintf("(%s %% (%s + 1))::int4", hashOf(x, seed+3000), rest)
	return fmt.Sprintf("%s || ' %s ' || %s || ' %s ' || %s",
		tpchSubstr(hashOf(x, seed), a), word1, tpchSubstr(hashOf(x, seed+4000), b), word2,
		tpchSubstr(hashOf(x, seed+5000), fmt.Sprintf("(%s - %s)", rest, b)))
}
