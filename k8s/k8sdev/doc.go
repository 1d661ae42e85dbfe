// Package k8sdev sets up a throwaway Kubernetes API server for trying
// allot k8s-scheduler without a cluster: a kubeconfig file for it, fake
// GPU nodes that are Ready (no kubelet runs, so a bound pod only records
// its node), and the scheduler configured to run in-process. The API
// server itself is package localapi's Start (etcd and kube-apiserver from
// scripts/k8s-test-bins). allot k8s-dev is its command.
package k8sdev
