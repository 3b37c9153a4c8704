package serve

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime/route"
)

// proposalTTL is how long a proposed call waits for its confirmation.
const proposalTTL = 10 * time.Minute

// maxProposals bounds the proposals kept waiting: past it, the oldest
// goes (its confirmation then finds nothing and runs nothing).
const maxProposals = 1024

// proposals are the recovered calls POST /v1/ask proposed and POST
// /v1/ask/confirm may run, each once.
type proposals struct {
	mu    sync.Mutex
	m     map[string]pendingProposal
	order []string // ids, oldest first
}

type pendingProposal struct {
	p       *route.Proposal
	expires time.Time
}

// add keeps p and returns its id and expiry.
func (ps *proposals) add(p *route.Proposal, now time.Time) (string, time.Time) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := "prop-" + hex.EncodeToString(b[:])
	exp := now.Add(proposalTTL)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.m == nil {
		ps.m = map[string]pendingProposal{}
	}
	ps.sweep(now)
	for len(ps.order) >= maxProposals {
		delete(ps.m, ps.order[0])
		ps.order = ps.order[1:]
	}
	ps.m[id] = pendingProposal{p: p, expires: exp}
	ps.order = append(ps.order, id)
	return id, exp
}

// take removes and returns the live proposal of id (nil: none, expired,
// or already taken: a proposal runs at most once).
func (ps *proposals) take(id string, now time.Time) *route.Proposal {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pp, ok := ps.m[id]
	if !ok {
		return nil
	}
	delete(ps.m, id)
	for i, o := range ps.order {
		if o == id {
			ps.order = append(ps.order[:i], ps.order[i+1:]...)
			break
		}
	}
	if now.After(pp.expires) {
		return nil
	}
	return pp.p
}

// sweep drops the expired proposals (under mu).
func (ps *proposals) sweep(now time.Time) {
	keep := ps.order[:0]
	for _, id := range ps.order {
		if now.After(ps.m[id].expires) {
			delete(ps.m, id)
			continue
		}
		keep = append(keep, id)
	}
	ps.order = keep
}
