// Package kvstore keeps identities in a NATS JetStream key-value bucket,
// so a fleet of workers on many machines shares each identity's browser
// state and login records, and runs one login per identity and provider
// at a time across the fleet.
//
// [Store] satisfies identity.Keeper, the interface runtime.Identity.Store
// takes. A record is stored under the identity's name in the bucket
// (default MACROKIT_IDENTITIES, file storage, one revision per key) in the
// same envelope as the file store's, sealed with AES-256-GCM when the
// store has a key (identity.Encode and identity.Decode). Update is
// optimistic: it reads the record and its revision, applies fn and writes
// only if the revision is still the latest, rerunning fn on a fresh read
// after a conflict, so concurrent updates from any number of machines all
// land.
//
// The login lock is a key in a second bucket (Bucket + "_LOCKS") whose
// keys expire after the bucket's TTL (Config.LockTTL): LockLogin creates
// the key (refused while it exists), refreshes it every third of the TTL
// while held and deletes it on unlock, so a worker that dies holding the
// lock frees it within one TTL. docs/identity.md has the guarantees.
package kvstore
