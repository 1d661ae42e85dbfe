package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Prefixes tell a secret's kind at a glance (and to secret scanners).
const (
	PrefixUser = "allot_u_" // a user's API token
	PrefixJoin = "allot_j_" // an agents' join token
	PrefixNode = "allot_n_" // a node's own credential
)

// secretBytes is the entropy of a secret: 256 bits, so a plain SHA-256
// (not a slow password hash) is enough to store it.
const secretBytes = 32

// NewSecret returns a fresh random secret with the prefix, and its hash.
func NewSecret(prefix string) (secret, hash string, err error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("make a secret: %w", err)
	}
	secret = prefix + base64.RawURLEncoding.EncodeToString(b)
	return secret, Hash(secret), nil
}

// Hash is the stored form of a secret: hex SHA-256.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// BearerToken extracts the token of an Authorization header value
// ("Bearer TOKEN"); ok is false when there is none or it is malformed.
func BearerToken(header string) (token string, ok bool) {
	scheme, token, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || len(token) > 256 || strings.ContainsAny(token, " \t\r\n") {
		return "", false
	}
	return token, true
}
