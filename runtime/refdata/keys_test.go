package refdata_test

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/internal/refdatatest"
)

func TestKeyFilesRoundTrip(t *testing.T) {
	k, err := refdata.GenerateKey(rand.Reader, "release  key\nfor tiers")
	if err != nil {
		t.Fatal(err)
	}
	if len(k.ID) != 16 {
		t.Fatalf("id %q", k.ID)
	}
	priv, err := refdata.ParsePrivateKey(k.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !priv.Key.Equal(k.Key) || priv.ID != k.ID || priv.Comment != "release key for tiers" {
		t.Fatalf("private key changed: %+v", priv)
	}
	pub, err := refdata.ParsePublicKey(k.Public().Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Key.Equal(k.Public().Key) || pub.ID != k.ID {
		t.Fatal("public key changed")
	}
	if !strings.HasPrefix(string(pub.Marshal()), refdata.PublicKeyHeader+"\nid: "+k.ID+"\nkey: ") {
		t.Fatalf("format:\n%s", pub.Marshal())
	}
}

func TestKeyFileErrors(t *testing.T) {
	k := refdatatest.Key(7)
	pub := string(k.Public().Marshal())
	priv := string(k.Marshal())
	other := refdatatest.Key(8)
	cases := []struct {
		name, file, err string
		private         bool
	}{
		{"comments and blanks ok", "# a comment\n\n" + pub, "", false},
		{"private as public", priv, "this is a private-key", false},
		{"public as private", pub, "this is a public-key", true},
		{"no header", "id: " + k.ID + "\n", "want", false},
		{"id mismatch", strings.Replace(pub, k.ID, other.ID, 1), "does not match", false},
		{"bad id", strings.Replace(pub, k.ID, "XYZ", 1), "16 lower-case hex", false},
		{"bad base64", strings.Replace(pub, "key: ", "key: !", 1), "base64", false},
		{"short key", refdata.PublicKeyHeader + "\nid: " + k.ID + "\nkey: AAAA\n", "3 bytes", false},
		{"unknown field", pub + "expires: never\n", "unknown field", false},
		{"twice", pub + "comment: again\ncomment: again\n", "twice", false},
		{"missing key", refdata.PublicKeyHeader + "\nid: " + k.ID + "\n", "no key line", false},
		{"not name: value", pub + "junk\n", "name: value", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.private {
				_, err = refdata.ParsePrivateKey([]byte(tc.file))
			} else {
				_, err = refdata.ParsePublicKey([]byte(tc.file))
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

func TestKeyIDIsStable(t *testing.T) {
	// The key id is part of every signed manifest: it must never change.
	if got := refdatatest.Key(1).ID; got != refdata.KeyID(refdatatest.Key(1).Public().Key) || len(got) != 16 {
		t.Fatalf("id %q", got)
	}
	if refdatatest.Key(1).ID == refdatatest.Key(2).ID {
		t.Fatal("distinct keys share an id")
	}
}
