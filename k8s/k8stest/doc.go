// Package k8stest runs a real etcd and kube-apiserver for tests, the way
// controller-runtime's envtest does: no kubelet, no controllers beyond
// the API server's own, so nodes and pods are plain API objects and
// binding a pod only records the node.
//
// A package whose tests need the API server calls Main from its TestMain
// and Config from each test:
//
//	func TestMain(m *testing.M) { os.Exit(k8stest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		cfg := k8stest.Config(t) // an admin *rest.Config
//		...
//	}
//
// The first Config call starts one etcd and one kube-apiserver for the
// test binary, in a temporary directory on free 127.0.0.1 ports; Main
// stops them. Tests share the cluster, so each should use names (a
// namespace, a scheduler name, node labels) of its own.
//
// The servers are package localapi's, which finds the binaries (in
// ALLOT_TEST_KUBE_APISERVER and ALLOT_TEST_ETCD, then in
// ~/.cache/allot-k8s/bin where scripts/k8s-test-bins installs them, then
// in PATH); when one is missing the test fails, saying how to get it.
package k8stest
