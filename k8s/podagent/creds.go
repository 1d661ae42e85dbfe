package podagent

import (
	"context"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// credentials keeps the nodes' credentials, which the master issues at
// a node's first registration, in one Secret (a key per node), so that a
// restarted backend, wherever it runs, registers the nodes again without
// a join token; a join token cannot take over a node whose lease is
// still alive.
type credentials struct {
	cs        kubernetes.Interface
	namespace string
	name      string

	mu  sync.Mutex
	byN map[string]string
}

// load reads the Secret; a missing one holds no credential yet.
func (c *credentials) load(ctx context.Context) error {
	s, err := c.cs.CoreV1().Secrets(c.namespace).Get(ctx, c.name, metav1.GetOptions{})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byN = map[string]string{}
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("read the credentials Secret %s/%s: %w", c.namespace, c.name, err)
	}
	for k, v := range s.Data {
		c.byN[k] = string(v)
	}
	return nil
}

func (c *credentials) get(node string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byN[node]
}

// save stores a node's new credential in the Secret, creating it if
// needed, before the backend relies on it.
func (c *credentials) save(ctx context.Context, node, secret string) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		api := c.cs.CoreV1().Secrets(c.namespace)
		s, err := api.Get(ctx, c.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			s = &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: c.namespace,
				Labels: map[string]string{LabelManagedBy: ManagedBy}}, Data: map[string][]byte{node: []byte(secret)}}
			_, err = api.Create(ctx, s, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return apierrors.NewConflict(v1.Resource("secrets"), c.name, err)
			}
			return err
		}
		if err != nil {
			return err
		}
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		s.Data[node] = []byte(secret)
		_, err = api.Update(ctx, s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("save the credential of node %s in Secret %s/%s: %w", node, c.namespace, c.name, err)
	}
	c.mu.Lock()
	c.byN[node] = secret
	c.mu.Unlock()
	return nil
}
