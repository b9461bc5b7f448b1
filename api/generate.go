// Package api is generated from openapi.yaml by oapi-codegen: the types, the
// client, the standard-library strict server interface and the embedded spec.
// Never edit the *.gen.go files; change openapi.yaml and run go generate.
package api

//go:generate go tool oapi-codegen -config api.cfg.yaml ../openapi.yaml
