package kubernetes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// job is the part of a batch/v1 Job the manifests use, with Kubernetes' field names; decoding is
// strict, so a misspelt or misplaced field fails the test.
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          *int   `yaml:"completions"`
		Parallelism          *int   `yaml:"parallelism"`
		BackoffLimit         *int   `yaml:"backoffLimit"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		Template             struct {
			Metadata meta `yaml:"metadata"`
			Spec     struct {
				RestartPolicy string      `yaml:"restartPolicy"`
				Containers    []container `yaml:"containers"`
				Volumes       []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type meta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type container struct {
	Name      string   `yaml:"name"`
	Image     string   `yaml:"image"`
	Command   []string `yaml:"command"`
	Args      []string `yaml:"args"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// vars are the variables the README renders the manifests with.
var vars = map[string]string{
	"NAME":    "spike-load",
	"IMAGE":   "registry.example.com/overloadsim:v1",
	"CLAIM":   "overloadsim-results",
	"SHARDS":  "4",
	"WORKERS": "2",
	"WORK":    `sweep spike --vary 'clients[0].workload.rate=1000/s:3000/s:250/s' --replications 5`,
}

// render is envsubst with a list of variables: it replaces ${VAR} and $VAR of the variables
// listed and leaves every other $ alone, as the pods' $JOB_COMPLETION_INDEX must be.
func render(t *testing.T, file string, names ...string) job {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`\$\{?([A-Z_]+)\}?`).ReplaceAllStringFunc(string(b), func(m string) string {
		name := strings.Trim(m, "${}")
		if !slices.Contains(names, name) {
			return m
		}
		return vars[name]
	})
	if strings.Contains(text, "${") {
		t.Fatalf("%s: a variable was left unrendered:\n%s", file, text)
	}
	var j job
	if err := yaml.UnmarshalWithOptions([]byte(text), &j, yaml.Strict()); err != nil {
		t.Fatalf("%s does not decode as a Job: %v", file, err)
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Errorf("%s: %s %s, want batch/v1 Job", file, j.APIVersion, j.Kind)
	}
	if !strings.HasPrefix(j.Metadata.Name, vars["NAME"]+"-") {
		t.Errorf("%s: name %q", file, j.Metadata.Name)
	}
	spec := j.Spec.Template.Spec
	if len(spec.Containers) != 1 || spec.Containers[0].Image != vars["IMAGE"] {
		t.Fatalf("%s: containers %+v, want one running %s", file, spec.Containers, vars["IMAGE"])
	}
	if spec.RestartPolicy != "Never" {
		t.Errorf("%s: restartPolicy %q, want Never (a rerun resumes from the volume)", file, spec.RestartPolicy)
	}
	c := spec.Containers[0]
	if len(c.VolumeMounts) != 1 || len(spec.Volumes) != 1 || c.VolumeMounts[0].Name != spec.Volumes[0].Name ||
		spec.Volumes[0].PersistentVolumeClaim.ClaimName != vars["CLAIM"] || c.VolumeMounts[0].MountPath != "/results" {
		t.Errorf("%s: the results volume is not the claim %s mounted at /results: %+v %+v", file, vars["CLAIM"], c.VolumeMounts, spec.Volumes)
	}
	if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 {
		t.Fatalf("%s: command %q args %q, want /bin/sh -c SCRIPT", file, c.Command, c.Args)
	}
	return j
}

// argv runs a container's shell script with index as $JOB_COMPLETION_INDEX and a simulate on
// PATH that prints its arguments, one per line, and returns them: what the pod would run.
func argv(t *testing.T, c container, index int) []string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "simulate"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(c.Command[0], append(c.Command[1:], c.Args...)...)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", fmt.Sprintf("JOB_COMPLETION_INDEX=%d", index)}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the pod's script: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// TestShardJob: the shard manifest is an Indexed Job of SHARDS pods, pod i running shard i of
// SHARDS of the user's sweep into its own folder on the shared volume.
func TestShardJob(t *testing.T) {
	j := render(t, "shard-job.yaml", "NAME", "IMAGE", "CLAIM", "SHARDS", "WORKERS", "WORK")
	if j.Spec.CompletionMode != "Indexed" || j.Spec.Completions == nil || j.Spec.Parallelism == nil ||
		*j.Spec.Completions != 4 || *j.Spec.Parallelism != 4 {
		t.Errorf("completionMode %q, completions %v, parallelism %v: want Indexed, 4, 4", j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism)
	}
	if j.Spec.BackoffLimitPerIndex == nil {
		t.Error("no backoffLimitPerIndex: a failed pod's shard would not be retried on its own")
	}
	c := j.Spec.Template.Spec.Containers[0]
	if c.Resources.Requests["cpu"] != vars["WORKERS"] {
		t.Errorf("cpu request %q, want the workers, %s", c.Resources.Requests["cpu"], vars["WORKERS"])
	}
	for i := range 4 {
		got := argv(t, c, i)
		want := []string{"sweep", "spike", "--vary", "clients[0].workload.rate=1000/s:3000/s:250/s", "--replications", "5",
			"--shard", fmt.Sprintf("%d/4", i), "--workers", "2", "--out", fmt.Sprintf("/results/spike-load/shard-%d", i)}
		if !slices.Equal(got, want) {
			t.Errorf("pod %d runs simulate %q,\nwant %q", i, got, want)
		}
	}
}

// TestMergeJob: the merge manifest merges every shard folder the shard Job wrote.
func TestMergeJob(t *testing.T) {
	j := render(t, "merge-job.yaml", "NAME", "IMAGE", "CLAIM")
	c := j.Spec.Template.Spec.Containers[0]
	script := c.Args[0]
	if !strings.Contains(script, "simulate merge /results/spike-load/shard-* --out \"/results/spike-load/merged\"") {
		t.Errorf("the merge pod runs %q, want simulate merge of /results/spike-load/shard-* into /results/spike-load/merged", script)
	}
	if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 {
		t.Error("a merge that refuses its shards must fail at once, not be retried: backoffLimit 0")
	}
}
