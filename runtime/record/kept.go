package record

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// KeptVersion is the format version of a kept recording.
const KeptVersion = 1

// Kept is a recording kept on disk so that a spec can be built from it
// again without demonstrating again (`record NAME --from FILE`): the
// actions as the engine reported them, with what the page showed around
// each, and no secret value.
type Kept struct {
	Version int    `json:"macrokit_recording"`
	Name    string `json:"name"`
	URL     string `json:"url"`
	Landed  string `json:"landed,omitempty"`
	// Withheld are the parameters whose values were replaced (with
	// redact.Marker) everywhere in the actions.
	Withheld []string      `json:"withheld,omitempty"`
	Actions  []*keptAction `json:"actions"`
}

// keptAction is a recorded action with what the engine does not send to
// the page and back (the state after it, its requests).
type keptAction struct {
	*engine.Recorded
	After    *engine.RecordState `json:"after,omitempty"`
	Requests []engine.Request    `json:"requests,omitempty"`
}

// Keep encodes a recording for Kept, withholding every value that is or
// may be meant as a secret: password fields, --secret names, and for a
// --secret naming no parameter, the parameter it most likely meant, or,
// with none near, every typed value (any could be the one).
func Keep(acts []*engine.Recorded, o Options) ([]byte, error) {
	b := &builder{o: o, m: &Macro{Name: o.Name}, taken: map[string]bool{}}
	b.gotoStep()
	for _, a := range mergeOptionClicks(acts) {
		b.action(a)
	}
	byName := map[string]*Param{}
	for _, p := range b.m.Params {
		byName[p.Name] = p
	}
	withhold := map[*Param]bool{}
	for _, p := range b.m.Params {
		if p.Secret {
			withhold[p] = true
		}
	}
	unknown, _ := unknownNames(o, b.m.Params)
	for _, u := range unknown {
		if u.Flag != "--secret" {
			continue
		}
		if p := byName[u.Suggest]; p != nil {
			withhold[p] = true
			continue
		}
		for _, p := range b.m.Params {
			if p.Enum == nil {
				withhold[p] = true
			}
		}
	}
	k := &Kept{Version: KeptVersion, Name: o.Name, URL: o.URL, Landed: o.Landed}
	var secrets []string
	for _, p := range b.m.Params {
		if withhold[p] {
			k.Withheld = append(k.Withheld, p.Name)
			secrets = append(append(secrets, p.Value), p.Values...)
		}
	}
	for _, a := range acts {
		k.Actions = append(k.Actions, &keptAction{Recorded: a, After: a.After, Requests: a.Requests})
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	// Every string the recording holds, the page's texts and URLs too; not
	// the keys (field names, test ids).
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return json.MarshalIndent(redact.Any(doc, secrets), "", " ")
}

// ReadKept decodes a kept recording: the actions and the options it was
// recorded with (name, URL, landing URL).
func ReadKept(data []byte) ([]*engine.Recorded, Options, error) {
	var k Kept
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, Options{}, &Error{Msg: fmt.Sprintf("not a kept recording: %v", err)}
	}
	if k.Version != KeptVersion {
		return nil, Options{}, &Error{Msg: fmt.Sprintf("not a kept recording of this version (macrokit_recording: %d, want %d)", k.Version, KeptVersion)}
	}
	if k.URL == "" || len(k.Actions) == 0 {
		return nil, Options{}, &Error{Msg: "a kept recording needs its url and at least one action"}
	}
	var acts []*engine.Recorded
	for _, ka := range k.Actions {
		if ka == nil || ka.Recorded == nil {
			return nil, Options{}, &Error{Msg: "a kept recording's action is empty"}
		}
		a := ka.Recorded
		a.After, a.Requests = ka.After, ka.Requests
		acts = append(acts, a)
	}
	return acts, Options{Name: k.Name, URL: k.URL, Landed: k.Landed}, nil
}
