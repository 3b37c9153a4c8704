package kvstore

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/macrokit/macrokit-go/internal/natstest"
	"github.com/macrokit/macrokit-go/runtime/identity"
)

// startServer runs an embedded nats-server with JetStream file storage in
// a temporary directory.
func startServer(t *testing.T) *server.Server {
	t.Helper()
	return natstest.Start(t, "", -1)
}

// connect opens a connection of its own: each one stands for a worker on
// another machine.
func connect(t *testing.T, s *server.Server) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, js := natstest.Connect(t, s.ClientURL())
	return nc, js
}

// openStore opens a store on its own connection, polling a held lock
// quickly so the lock tests do not wait on the production interval.
func openStore(t *testing.T, s *server.Server, cfg Config) *Store {
	t.Helper()
	_, js := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := Open(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st.poll = 20 * time.Millisecond
	return st
}

const cookieValue = "s3ss10n-c00k13-value-0123456789"

func signedIn() identity.State {
	return identity.State{
		Cookies: []identity.Cookie{{Name: "sid", Value: cookieValue, Domain: "app.example", Path: "/", Expires: -1, HTTPOnly: true, SameSite: "Lax"}},
		Origins: []identity.Origin{{Origin: "https://app.example", LocalStorage: []identity.StorageItem{{Name: "token", Value: "local-storage-token-42"}}}},
	}
}

func testKey(t *testing.T) []byte {
	t.Helper()
	k, err := identity.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	key, err := identity.KeyFromEnv(func(string) string { return k })
	if err != nil {
		t.Fatal(err)
	}
	return key
}
