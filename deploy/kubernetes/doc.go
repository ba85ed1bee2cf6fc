// Package kubernetes holds the Kubernetes manifests that run a sweep or map as an Indexed Job,
// one shard per pod, and merge the shards (shard-job.yaml, merge-job.yaml, and the Dockerfile
// of an image with simulate on PATH). Its test renders them as the README says and checks that
// they decode as the Jobs they claim to be and run the commands they should.
package kubernetes
