package loader

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/draconform/draconform/tools/spec"
)

// LoadProduct reads a Product file as strictly as the specs: unknown keys,
// missing fields and a wrong kind are reported with file:line.
func LoadProduct(path string) (*spec.Product, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("product file: %w", err)
	}
	p := &spec.Product{}
	probs, n := loadDoc(path, data, "Product", p)
	if n != nil {
		required(&probs, path, n.Line, "product", map[string]string{
			"vendor": p.Vendor, "name": p.Name, "version": p.Version, "driver": p.Driver, "image": p.Image, "contact": p.Contact})
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return p, nil
}

// LoadProfile reads a DriverProfile file strictly.
func LoadProfile(path string) (*spec.DriverProfile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("driver profile: %w", err)
	}
	return profileOf(path, data)
}

// LoadProfileFS reads a DriverProfile from fsys (the built-in ones).
func LoadProfileFS(fsys fs.FS, name string) (*spec.DriverProfile, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("driver profile: %w", err)
	}
	return profileOf(name, data)
}

var quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([KMGTPE]i?|[mkMGTPE]|e[0-9]+)?$`)

func profileOf(name string, data []byte) (*spec.DriverProfile, error) {
	p := &spec.DriverProfile{}
	probs, n := loadDoc(name, data, "DriverProfile", p)
	if n != nil {
		required(&probs, name, n.Line, "driver profile", map[string]string{
			"name": p.Name, "driver": p.Driver, "capacity": p.Capacity, "share": p.Share, "overCapacity": p.OverCapacity,
			"workload.image": p.Workload.Image})
		if p.Name != "" && !dnsLabel.MatchString(p.Name) {
			probs.add(name, n.Line, "a DNS label", "driver profile name %q is not a DNS label", p.Name)
		}
		for field, q := range map[string]string{"share": p.Share, "overCapacity": p.OverCapacity} {
			if q != "" && !quantity.MatchString(q) {
				probs.add(name, n.Line, "a Kubernetes quantity, e.g. 10Gi or 1", "driver profile %s %q is not a quantity", field, q)
			}
		}
		if len(p.Workload.Command) == 0 {
			probs.add(name, n.Line, "a command that prints its environment and keeps running, e.g. [sh, -c, 'env; sleep 3600']", "driver profile: workload.command is missing")
		}
		if len(p.Env) == 0 {
			probs.add(name, n.Line, "what a running container must see of its share, e.g. NVIDIA_VISIBLE_DEVICES: <any>", "driver profile: env is missing")
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return p, nil
}

// loadDoc decodes the one document of data into v strictly, checking its
// apiVersion and kind; it returns the problems and the document's node.
func loadDoc(name string, data []byte, kind string, v any) (Problems, *yaml.Node) {
	var probs Problems
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil || len(doc.Content) == 0 {
		probs.add(name, 0, "a YAML document with kind: "+kind, "not a %s file: %v", kind, err)
		return probs, nil
	}
	n := doc.Content[0]
	decoder{file: name, errs: &probs}.decode(n, reflectValue(v))
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
	}
	_ = n.Decode(&head)
	if head.APIVersion != spec.APIVersion || head.Kind != kind {
		probs.add(name, n.Line, "apiVersion: "+spec.APIVersion+" and kind: "+kind, "apiVersion %q, kind %q", head.APIVersion, head.Kind)
	}
	return probs, n
}

func required(probs *Problems, file string, line int, what string, fields map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if fields[k] == "" {
			probs.add(file, line, "a reader needs it", "%s: %s is missing", what, k)
		}
	}
}
