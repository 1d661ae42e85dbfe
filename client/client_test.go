package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/api"
)

// request is what the fake master saw.
type request struct {
	Method, Path, Query, Body, ContentType string
}

// fakeMaster answers every request with status and body, and records the
// request.
func fakeMaster(t *testing.T, status int, body string) (*Client, *request) {
	t.Helper()
	seen := &request{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		*seen = request{r.Method, r.URL.Path, r.URL.RawQuery, string(data), r.Header.Get("Content-Type")}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c, seen
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestNew(t *testing.T) {
	tests := []struct {
		addr, want string
		ok         bool
	}{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"https://master.example:443/", "https://master.example:443", true},
		{"master:8080", "http://master:8080", true},
		{" 10.0.0.5:8080 ", "http://10.0.0.5:8080", true},
		{"http://host/prefix/", "http://host/prefix", true},
		{"http://127.0.0.1:19191/api/v1", "http://127.0.0.1:19191", true},
		{"http://127.0.0.1:19191/api/v1/", "http://127.0.0.1:19191", true},
		{"127.0.0.1:19191/api/v1", "http://127.0.0.1:19191", true},
		{"http://host/prefix/api/v1", "http://host/prefix", true},
		{"http://host/api/v10", "http://host/api/v10", true},
		{"http://127.0.0.1:19191/api", "http://127.0.0.1:19191", true},
		{"http://127.0.0.1:19191/api/", "http://127.0.0.1:19191", true},
		{"127.0.0.1:19191/api", "http://127.0.0.1:19191", true},
		{"http://host/prefix/api/", "http://host/prefix", true},
		{"http://host/api/v1/jobs", "", false},
		{"http://host/api/v1/api/v1", "", false},
		{"", "", false},
		{"ftp://host", "", false},
		{"http://", "", false},
		{"http://host?x=1", "", false},
		{"http://ho st", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			c, err := New(tt.addr, nil)
			if (err == nil) != tt.ok {
				t.Fatalf("New(%q) error = %v, want ok %v", tt.addr, err, tt.ok)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "expected a URL such as http://127.0.0.1:8080 or host:port") {
					t.Errorf("error %q does not say what is expected", err)
				}
				return
			}
			if c.Addr() != tt.want {
				t.Errorf("Addr() = %q, want %q", c.Addr(), tt.want)
			}
		})
	}
}

func TestRequests(t *testing.T) {
	task := 2
	prio, class, weight := 10, "HIGH", 2.5
	jobJSON := `{"id":7,"name":"a","state":"queued","project":"p","pool":"q","slots":1,"tasks":1}`
	tests := []struct {
		name   string
		status int
		reply  string
		call   func(c *Client) (any, error)
		want   request
		result any
	}{
		{"submit", 201, `{"id":7,"tasks":3}`,
			func(c *Client) (any, error) {
				return c.Submit(ctx(t), json.RawMessage(`{"name": "a", "entrypoint": "x"}`))
			},
			request{"POST", "/api/v1/jobs", "", `{"name":"a","entrypoint":"x"}`, "application/json"},
			api.SubmitReply{ID: 7, Tasks: 3}},
		{"jobs unfiltered", 200, "[" + jobJSON + "]",
			func(c *Client) (any, error) { return c.Jobs(ctx(t), JobFilter{}) },
			request{"GET", "/api/v1/jobs", "", "", ""},
			[]api.Job{{ID: 7, Name: "a", State: "queued", Project: "p", Pool: "q", Slots: 1, Tasks: 1}}},
		{"jobs filtered", 200, "[]",
			func(c *Client) (any, error) {
				return c.Jobs(ctx(t), JobFilter{State: "queued", Pool: "gpu", Project: "a b", User: "ana"})
			},
			request{"GET", "/api/v1/jobs", "pool=gpu&project=a+b&state=queued&user=ana", "", ""},
			[]api.Job{}},
		{"job", 200, jobJSON,
			func(c *Client) (any, error) { return c.Job(ctx(t), 7) },
			request{"GET", "/api/v1/jobs/7", "", "", ""},
			api.Job{ID: 7, Name: "a", State: "queued", Project: "p", Pool: "q", Slots: 1, Tasks: 1}},
		{"kill", 200, jobJSON,
			func(c *Client) (any, error) { return c.Kill(ctx(t), 7) },
			request{"POST", "/api/v1/jobs/7/kill", "", "", ""},
			api.KillReply{Job: api.Job{ID: 7, Name: "a", State: "queued", Project: "p", Pool: "q", Slots: 1, Tasks: 1}}},
		{"kill of an ended job", 200, `{"id":7,"name":"a","state":"completed","project":"p","pool":"q","slots":1,"tasks":1,"already_ended":true}`,
			func(c *Client) (any, error) { return c.Kill(ctx(t), 7) },
			request{"POST", "/api/v1/jobs/7/kill", "", "", ""},
			api.KillReply{Job: api.Job{ID: 7, Name: "a", State: "completed", Project: "p", Pool: "q", Slots: 1, Tasks: 1}, AlreadyEnded: true}},
		{"hold", 200, `{"id":7,"name":"a","state":"queued","project":"p","pool":"q","slots":1,"tasks":1,"held":{"by":"ana","at":"2024-05-01T10:00:00Z"},"changed":true}`,
			func(c *Client) (any, error) { return c.Hold(ctx(t), 7) },
			request{"POST", "/api/v1/jobs/7/hold", "", "", ""},
			api.HoldReply{Job: api.Job{ID: 7, Name: "a", State: "queued", Project: "p", Pool: "q", Slots: 1, Tasks: 1,
				Held: &api.Held{By: "ana", At: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)}}, Changed: true}},
		{"release", 200, jobJSON,
			func(c *Client) (any, error) { return c.Release(ctx(t), 7) },
			request{"POST", "/api/v1/jobs/7/release", "", "", ""},
			api.HoldReply{Job: api.Job{ID: 7, Name: "a", State: "queued", Project: "p", Pool: "q", Slots: 1, Tasks: 1}}},
		{"hold a list", 200, `[{"id":7,"status":404,"error":"job 7 does not exist"}]`,
			func(c *Client) (any, error) { return c.HoldJobs(ctx(t), []int64{7}, true) },
			request{"POST", "/api/v1/jobs/hold", "", `{"ids":[7]}`, "application/json"},
			[]api.HoldResult{{ID: 7, Status: 404, Error: "job 7 does not exist"}}},
		{"update priority", 200, jobJSON,
			func(c *Client) (any, error) { return c.Update(ctx(t), 7, api.JobUpdate{Priority: &prio}) },
			request{"PATCH", "/api/v1/jobs/7", "", `{"priority":10}`, "application/json"},
			api.Job{ID: 7, Name: "a", State: "queued", Project: "p", Pool: "q", Slots: 1, Tasks: 1}},
		{"update class and weight", 200, jobJSON,
			func(c *Client) (any, error) {
				return c.Update(ctx(t), 7, api.JobUpdate{PriorityClass: &class, Weight: &weight})
			},
			request{"PATCH", "/api/v1/jobs/7", "", `{"priority_class":"HIGH","weight":2.5}`, "application/json"},
			api.Job{ID: 7, Name: "a", State: "queued", Project: "p", Pool: "q", Slots: 1, Tasks: 1}},
		{"logs", 200, `{"lines":[{"task":2,"seq":1,"text":"hi","stream":"stdout","attempt":1,"time":"2024-05-01T10:00:00Z"}],"next":"c1","done":false}`,
			func(c *Client) (any, error) {
				return c.Logs(ctx(t), 7, LogQuery{Task: &task, After: "c0", Wait: 1500 * time.Millisecond})
			},
			request{"GET", "/api/v1/jobs/7/logs", "after=c0&task=2&wait=2", "", ""},
			api.Logs{Lines: []api.LogLine{{Task: 2, Attempt: 1, Seq: 1, Time: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), Stream: "stdout", Text: "hi"}}, Next: "c1"}},
		{"nodes", 200, `[{"name":"n1","pool":"gpu","state":"up","slots":8,"used":2,"gpus":[]}]`,
			func(c *Client) (any, error) { return c.Nodes(ctx(t)) },
			request{"GET", "/api/v1/nodes", "", "", ""},
			[]api.Node{{Name: "n1", Pool: "gpu", State: "up", Slots: 8, Used: 2, GPUs: []api.GPU{}}}},
		{"pools", 200, `[{"name":"gpu","policy":"priority","grace_s":30}]`,
			func(c *Client) (any, error) { return c.Pools(ctx(t)) },
			request{"GET", "/api/v1/pools", "", "", ""},
			[]api.Pool{{Name: "gpu", Policy: "priority", GraceS: 30}}},
		{"projects", 200, `[{"name":"a","quota":4,"over_quota_weight":1,"used":2,"unknown_later_field":1}]`,
			func(c *Client) (any, error) { return c.Projects(ctx(t)) },
			request{"GET", "/api/v1/projects", "", "", ""},
			[]api.Project{{Name: "a", Quota: 4, OverQuotaWeight: 1, Used: 2}}},
		{"reload of an older master", 204, "",
			func(c *Client) (any, error) { return c.ReloadConfig(ctx(t)) },
			request{"POST", "/api/v1/config/reload", "", "", ""},
			api.Reload{}},
		{"reload with a warning", 200, `{"warnings":["pool batch has no node now"]}`,
			func(c *Client) (any, error) { return c.ReloadConfig(ctx(t)) },
			request{"POST", "/api/v1/config/reload", "", "", ""},
			api.Reload{Warnings: []string{"pool batch has no node now"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, seen := fakeMaster(t, tt.status, tt.reply)
			got, err := tt.call(c)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if *seen != tt.want {
				t.Errorf("request = %+v\nwant      %+v", *seen, tt.want)
			}
			if !reflect.DeepEqual(got, tt.result) {
				t.Errorf("result = %+v\nwant     %+v", got, tt.result)
			}
		})
	}
}

func TestSubmitRejectsBadJSON(t *testing.T) {
	c, seen := fakeMaster(t, 201, `{"id":1}`)
	if _, err := c.Submit(ctx(t), json.RawMessage(`{"name":`)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("error = %v", err)
	}
	if seen.Method != "" {
		t.Error("a broken spec was sent")
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   Error
		text   string
	}{
		{"api error with field", 400, `{"error":"resources.slots: expected an integer >= 0, got -1","field":"resources.slots"}`,
			Error{400, "resources.slots: expected an integer >= 0, got -1", "resources.slots", nil},
			"master: 400 Bad Request: resources.slots: expected an integer >= 0, got -1"},
		{"field not in the message", 400, `{"error":"expected an integer >= 0, got -1","field":"resources.slots"}`,
			Error{400, "expected an integer >= 0, got -1", "resources.slots", nil},
			"master: 400 Bad Request: resources.slots: expected an integer >= 0, got -1"},
		{"field named inside the message", 400, `{"error":"unknown pool \"tpu\"","field":"pool"}`,
			Error{400, `unknown pool "tpu"`, "pool", nil}, `master: 400 Bad Request: pool: unknown pool "tpu"`},
		{"not found", 404, `{"error":"no job 99"}`, Error{404, "no job 99", "", nil}, "master: 404 Not Found: no job 99"},
		{"not found, its path field left out", 404, `{"error":"job 99 does not exist","field":"id"}`,
			Error{404, "job 99 does not exist", "id", nil}, "master: 404 Not Found: job 99 does not exist"},
		{"plain text", 502, "upstream down\nmore detail", Error{502, "upstream down", "", nil}, "master: 502 Bad Gateway: upstream down"},
		{"html", 503, "<html><body>busy</body></html>", Error{503, "", "", nil}, "master: 503 Service Unavailable"},
		{"empty", 500, "", Error{500, "", "", nil}, "master: 500 Internal Server Error"},
		{"long text", 500, strings.Repeat("x", 300), Error{500, strings.Repeat("x", 200) + "...", "", nil}, "master: 500 Internal Server Error: " + strings.Repeat("x", 200) + "..."},
		{"several errors", 400, `{"error":"unknown pool \"qq\"","field":"pool","errors":[{"error":"unknown pool \"qq\"","field":"pool"},{"error":"unknown project \"teamz\"","field":"project"}]}`,
			Error{400, `unknown pool "qq"`, "pool", []api.FieldError{{Error: `unknown pool "qq"`, Field: "pool"}, {Error: `unknown project "teamz"`, Field: "project"}}},
			`master: 400 Bad Request: pool: unknown pool "qq"; project: unknown project "teamz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := fakeMaster(t, tt.status, tt.body)
			_, err := c.Job(ctx(t), 99)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not a *Error", err, err)
			}
			if !reflect.DeepEqual(*e, tt.want) {
				t.Errorf("Error = %+v, want %+v", *e, tt.want)
			}
			if err.Error() != tt.text {
				t.Errorf("Error() = %q\nwant       %q", err.Error(), tt.text)
			}
		})
	}

	c, _ := fakeMaster(t, 200, `[1, 2`)
	if _, err := c.Nodes(ctx(t)); err == nil || !strings.Contains(err.Error(), "GET /api/v1/nodes: the master's answer is not the expected JSON") {
		t.Errorf("a broken answer: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	// A listener that is closed at once gives an address nobody serves.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Pools(ctx(t))
	want := "cannot reach the master at http://" + addr + " (set --master or ALLOT_MASTER to another address): "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %v\nwant a message starting %q", err, want)
	}
	var e *Error
	if errors.As(err, &e) {
		t.Error("an unreachable master gave a *Error")
	}
}

func TestCancelled(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	c, _ := New(srv.URL, srv.Client())
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
		says string // in the message
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) {
			cctx, cancel := context.WithCancel(context.Background())
			cancel()
			return cctx, cancel
		}, context.Canceled, "master " + srv.URL + ": context canceled"},
		{"no answer in time", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded, "master " + srv.URL + " did not answer in time: it may be overloaded, or waiting on its store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cctx, cancel := tc.ctx()
			defer cancel()
			_, err := c.Jobs(cctx, JobFilter{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "ALLOT_MASTER") {
				t.Errorf("error = %v, want %v saying %q, without the address hint", err, tc.want, tc.says)
			}
		})
	}
}
