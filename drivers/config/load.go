package config

import (
	"bytes"
	"encoding/json"
	"fmt"

	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

// Load reads, decodes and validates the config file at path. Its problems
// are Problems, each at path:line.
func Load(path string) (*Config, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseFile(path, data)
}

// Parse decodes YAML strictly (unknown and duplicate fields are errors, so
// a typo cannot silently drop a capacity) and validates the result. Its
// problems name the file config.yaml, as the ConfigMap calls it.
func Parse(data []byte) (*Config, error) {
	return ParseFile("config.yaml", data)
}

// ParseFile is Parse for the file name: every problem it returns is a
// Problem at name:line.
func ParseFile(name string, data []byte) (*Config, error) {
	if len(data) > MaxFileSize {
		return nil, Problems{{name, 1, fmt.Sprintf("larger than %d bytes (1 MiB), the most a ConfigMap holds", MaxFileSize)}}
	}
	root, stop := document(name, data)
	if stop != nil {
		return nil, Problems{*stop}
	}
	if line, key, field := foldedKey(root); line > 0 {
		return nil, Problems{{name, line, fmt.Sprintf("decode: unknown field %q (names are case-sensitive: %s)", key, field)}}
	}
	var cfg Config
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return nil, Problems{{name, decodeLine(root, data, err), "decode: " + err.Error()}}
	}
	if errs := cfg.validate(); len(errs) > 0 {
		probs := make(Problems, len(errs))
		last, at := lastLine(data), newLocator(root)
		for i, e := range errs {
			probs[i] = Problem{name, min(at.line(e.Field), last), e.Error()}
		}
		sortByLine(probs)
		return nil, probs
	}
	return &cfg, nil
}

// Marshal encodes a config as the YAML that Parse reads, with fields in
// declaration order (name first) for the people who read the ConfigMap.
func Marshal(cfg *Config) ([]byte, error) {
	// JSON keeps struct field order and the Quantity and Attribute
	// encodings; a yaml.v3 node tree keeps that order when re-encoding.
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	var node yamlv3.Node
	if err := yamlv3.Unmarshal(data, &node); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	plainStyle(&node)
	var out bytes.Buffer
	enc := yamlv3.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return out.Bytes(), nil
}

// plainStyle drops the JSON quoting and flow style, except for strings
// that Parse would not read back as the same string. Parse reads YAML 1.1,
// where y and no are booleans; yaml.v3 only quotes for YAML 1.2.
func plainStyle(n *yamlv3.Node) {
	n.Style = 0
	if n.Kind == yamlv3.ScalarNode && n.Tag == "!!str" && !readsAsItself(n.Value) {
		n.Style = yamlv3.DoubleQuotedStyle
	}
	for _, child := range n.Content {
		plainStyle(child)
	}
}

func readsAsItself(s string) bool {
	var v any
	err := yaml.Unmarshal([]byte(s), &v)
	str, ok := v.(string)
	return err == nil && ok && str == s
}
