package master

import (
	"fmt"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/store"
)

// A refusal names the kind of credential it refused. A node's
// credential (or a join token) sent to the user's API was refused as an
// "invalid API token", which read as a user token gone bad, when it is
// the wrong kind of credential altogether (trial r R13): the refusal says
// whose it is and what the API takes instead.

// userTokenHint is what the API takes instead of an agent's credential.
const userTokenHint = "send a user's API token (allot login, or $ALLOT_TOKEN; an admin makes one with allot token create)"

// credKindText names an agent's credential and what it is for: "this is
// node n3's agent credential (allot_n_...), for the agents' protocol
// only, not a user's API token", or a join token's, which registers
// agents.
func credKindText(c store.Credential) string {
	switch c.Kind {
	case store.CredNode:
		return fmt.Sprintf("this is node %s's agent credential (allot_n_...), for the agents' protocol only, not a user's API token", c.Subject)
	case store.CredJoin:
		return "this is a join token (allot_j_...), for registering agents only, not a user's API token"
	}
	return fmt.Sprintf("a %s credential is not a user's API token", c.Kind)
}

// deadCredMessage is the 401 for a credential refused as not live (or
// not known), err saying why and hint what to do: "invalid API token:
// ..." for a user's token or an unknown one; for an agent's credential,
// its kind first, and on the API, not the agents' protocol, what the API
// takes instead: "invalid node credential: this is node n3's agent
// credential ..., and the token (id 4) was revoked at ...; send a user's
// API token (...)".
func deadCredMessage(path string, c store.Credential, err error, hint string) string {
	if c.Kind != store.CredNode && c.Kind != store.CredJoin {
		return err.Error() + hint
	}
	why := strings.TrimPrefix(err.Error(), errUnauthenticated.Error()+": ")
	what := "invalid node credential"
	if c.Kind == store.CredJoin {
		what = "invalid join token"
	}
	if strings.HasPrefix(path, api.Version+"/agents/") {
		if c.Kind == store.CredNode {
			what += " of node " + c.Subject
		}
		return what + ": " + why + hint
	}
	return what + ": " + credKindText(c) + ", and " + why + "; " + userTokenHint
}
