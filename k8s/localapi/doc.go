// Package localapi runs a real etcd and kube-apiserver on this machine,
// in a temporary directory on free 127.0.0.1 ports, and makes fake GPU
// nodes in it: no kubelet and no controllers beyond the API server's
// own, so nodes and pods are plain API objects and binding a pod only
// records the node. The tests use it through package k8stest; allot
// k8s-dev uses it to let a user try the Kubernetes scheduler without a
// cluster. It does not import package testing, so that the allot binary
// does not link it.
//
// The binaries are looked for in ALLOT_TEST_KUBE_APISERVER and
// ALLOT_TEST_ETCD (EnvAPIServer, EnvEtcd), then in ~/.cache/allot-k8s/bin
// (where scripts/k8s-test-bins installs them), then in PATH; a missing
// one is an error that says how to get it.
package localapi
