package loader

import (
	"bytes"
	"fmt"
	"os"

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
	var probs Problems
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil || len(doc.Content) == 0 {
		probs.add(path, 0, "a YAML document with kind: Product", "not a product file: %v", err)
		return nil, probs
	}
	n := doc.Content[0]
	p := &spec.Product{}
	decoder{file: path, errs: &probs}.decode(n, reflectValue(p))
	if p.APIVersion != spec.APIVersion || p.Kind != "Product" {
		probs.add(path, n.Line, "apiVersion: "+spec.APIVersion+" and kind: Product", "apiVersion %q, kind %q", p.APIVersion, p.Kind)
	}
	for _, f := range []struct{ name, value string }{
		{"vendor", p.Vendor}, {"name", p.Name}, {"version", p.Version}, {"driver", p.Driver}, {"image", p.Image}, {"contact", p.Contact},
	} {
		if f.value == "" {
			probs.add(path, n.Line, "a bundle's reader needs it", "product: %s is missing", f.name)
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return p, nil
}
