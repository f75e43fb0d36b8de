package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

// Load reads, decodes and validates the config file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse decodes YAML strictly (unknown and duplicate fields are errors, so
// a typo cannot silently drop a capacity) and validates the result.
func Parse(data []byte) (*Config, error) {
	var cfg Config
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
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
