package localapi

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

// startTimeout bounds how long the servers may take to become ready; the
// API server's bootstrap (RBAC roles, priority classes) is slow on a busy
// two-core machine.
const startTimeout = 2 * time.Minute

// Server is a running etcd and kube-apiserver.
type Server struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	dir    string
	etcd   *exec.Cmd
	api    *exec.Cmd
	ports  Ports
}

// Start runs etcd and kube-apiserver in a new temporary directory. Stop
// ends them and removes the directory.
func Start() (*Server, error) { return StartWith(Ports{}) }

// Ports are the loopback ports the servers listen on; 0 picks a free one.
type Ports struct {
	API      int // kube-apiserver's secure port
	Etcd     int // etcd's client port
	EtcdPeer int // etcd's peer port
}

// StartWith is Start on the given ports.
func StartWith(ports Ports) (*Server, error) {
	apiBin, err := find(EnvAPIServer, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	etcdBin, err := find(EnvEtcd, "etcd")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "allot-k8stest-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	s := &Server{dir: dir, ports: ports}
	if err := s.start(etcdBin, apiBin); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

func (s *Server) start(etcdBin, apiBin string) error {
	etcdURL, err := s.startEtcd(etcdBin)
	if err != nil {
		return err
	}
	return s.startAPI(apiBin, etcdURL)
}

func (s *Server) startEtcd(bin string) (string, error) {
	client, peer := portOr(s.ports.Etcd), portOr(s.ports.EtcdPeer)
	if client == 0 || peer == 0 {
		return "", errors.New("no free port for etcd")
	}
	url := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	var err error
	s.etcd, err = s.run("etcd", bin, "--name=test", "--data-dir="+filepath.Join(s.dir, "etcd"),
		"--listen-client-urls="+url, "--advertise-client-urls="+url,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=test="+peerURL)
	if err != nil {
		return "", err
	}
	return url, s.waitReady(s.etcd, "etcd", url+"/health", "")
}

func (s *Server) startAPI(bin, etcdURL string) error {
	token, err := s.writeAuth()
	if err != nil {
		return err
	}
	port := portOr(s.ports.API)
	if port == 0 {
		return errors.New("no free port for kube-apiserver")
	}
	key := filepath.Join(s.dir, "sa.key")
	s.api, err = s.run("kube-apiserver", bin,
		"--etcd-servers="+etcdURL,
		"--cert-dir="+filepath.Join(s.dir, "certs"),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		// A loopback address cannot be the kubernetes service's endpoint.
		"--endpoint-reconciler-type=none",
		"--secure-port="+strconv.Itoa(port),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--token-auth-file="+filepath.Join(s.dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+key, "--service-account-signing-key-file="+key,
		// No controller manager creates service accounts, so pods could
		// not be admitted with this plugin on.
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true")
	if err != nil {
		return err
	}
	host := "https://127.0.0.1:" + strconv.Itoa(port)
	s.Config = &rest.Config{Host: host, BearerToken: token, QPS: 200, Burst: 400,
		// The API server signs its own serving certificate; the test
		// client talks to it over loopback only.
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	return s.waitReady(s.api, "kube-apiserver", host+"/readyz", token)
}

// writeAuth writes the service-account signing key and a token file with
// one admin token, and returns that token.
func (s *Server) writeAuth() (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", fmt.Errorf("service-account key: %w", err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(filepath.Join(s.dir, "sa.key"), pemKey, 0o600); err != nil {
		return "", fmt.Errorf("service-account key: %w", err)
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	token := hex.EncodeToString(raw)
	line := token + ",admin,admin,system:masters\n"
	if err := os.WriteFile(filepath.Join(s.dir, "tokens.csv"), []byte(line), 0o600); err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	return token, nil
}

// run starts a server with its output in dir/name.log. Pdeathsig stops it
// if the test binary dies without calling Stop.
func (s *Server) run(name, bin string, args ...string) (*exec.Cmd, error) {
	log, err := os.Create(filepath.Join(s.dir, name+".log"))
	if err != nil {
		return nil, fmt.Errorf("%s log: %w", name, err)
	}
	defer log.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = dieWithParent(&syscall.SysProcAttr{})
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go cmd.Wait() //nolint:errcheck // reaps it; Stop looks at ProcessState
	return cmd, nil
}

// waitReady polls url until it answers 200, the process exits or
// startTimeout passes.
func (s *Server) waitReady(cmd *exec.Cmd, name, url, token string) error {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback test server
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if exited(cmd) {
			return fmt.Errorf("%s exited while starting:\n%s", name, s.logTail(name))
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready after %v:\n%s", name, startTimeout, s.logTail(name))
}

func exited(cmd *exec.Cmd) bool {
	// Signal 0 checks the process exists without touching it.
	return cmd.Process.Signal(syscall.Signal(0)) != nil
}

func (s *Server) logTail(name string) string {
	b, err := os.ReadFile(filepath.Join(s.dir, name+".log"))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// Dir is the temporary directory holding the servers' data and logs
// (etcd.log, kube-apiserver.log); Stop removes it.
func (s *Server) Dir() string { return s.dir }

// Stop ends the API server, then etcd, and removes their files.
func (s *Server) Stop() error {
	for _, cmd := range []*exec.Cmd{s.api, s.etcd} {
		if cmd == nil || exited(cmd) {
			continue
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		for i := 0; i < 100 && !exited(cmd); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		_ = cmd.Process.Kill()
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("remove %s: %w", s.dir, err)
	}
	return nil
}

// freePort returns a port that was free a moment ago, or 0.
// portOr is port, or a free one for 0.
func portOr(port int) int {
	if port != 0 {
		return port
	}
	return freePort()
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
