package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/partnercommerce/conformance/reference/httpapi"
)

// jobManifest is the part of deploy/k8s/loadtest-job.yaml this test reads.
type jobManifest struct {
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Args []string `yaml:"args"`
					Env  []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestKubernetesJobArgsRunAShard runs the Job's container arguments, as
// Kubernetes expands them for shard 0, through the CLI. Only the profile
// (pointed at an in-process reference), the output directory and the
// duration are redirected, so that a flag renamed in the CLI, or a manifest
// edited out of step with it, fails here rather than in a cluster.
func TestKubernetesJobArgsRunAShard(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "loadtest-job.yaml"))
	require.NoError(t, err)
	var job jobManifest
	require.NoError(t, yaml.Unmarshal(raw, &job))
	assert.Equal(t, "Indexed", job.Spec.CompletionMode)
	assert.Equal(t, job.Spec.Completions, job.Spec.Parallelism)
	require.Len(t, job.Spec.Template.Spec.Containers, 1)
	c := job.Spec.Template.Spec.Containers[0]

	env := map[string]string{"JOB_COMPLETION_INDEX": "0"}
	for _, e := range c.Env {
		if e.Value != "" {
			env[e.Name] = e.Value
		}
	}
	assert.Equal(t, env["LOADTEST_SHARDS"], strconv.Itoa(job.Spec.Completions),
		"LOADTEST_SHARDS must equal completions")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, stop, err := httpapi.ServeLoopback(ctx, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer stop()
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile.yaml")
	ref, err := os.ReadFile(filepath.Join("..", "..", "profiles", "reference.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(profile, []byte(strings.Replace(string(ref),
		"base_url: http://127.0.0.1:8080", "base_url: "+url, 1)), 0o600))

	expand := regexp.MustCompile(`\$\(([A-Z_]+)\)`)
	var args []string
	for _, a := range c.Args {
		a = expand.ReplaceAllStringFunc(a, func(m string) string {
			v, ok := env[m[2:len(m)-1]]
			require.True(t, ok, "the manifest uses %s but does not define it", m)
			return v
		})
		switch {
		case strings.HasPrefix(a, "--profile="):
			a = "--profile=" + profile
		case strings.HasPrefix(a, "--out="):
			a = "--out=" + filepath.Join(dir, "out")
		case strings.HasPrefix(a, "--duration="):
			a = "--duration=300ms"
		case strings.HasPrefix(a, "--rate="):
			a = "--rate=40"
		}
		args = append(args, a)
	}
	assert.Contains(t, args, "--shard=0/"+strconv.Itoa(job.Spec.Completions))

	out, stderr, err := runCLI(t, args...)
	requireNoFailure(t, out, stderr, err)
	_, err = os.Stat(filepath.Join(dir, "out", "shard.json"))
	assert.NoError(t, err)
}
