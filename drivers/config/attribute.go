package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Attribute is a device attribute value: a string, an integer or a boolean,
// written as the plain YAML scalar.
type Attribute struct {
	String *string
	Int    *int64
	Bool   *bool

	// invalid holds a value that is none of the above. Decoding keeps it
	// instead of failing, because only Validate knows the attribute's path
	// and can say which attribute is wrong.
	invalid string
}

// StringAttribute builds a string attribute value.
func StringAttribute(v string) Attribute { return Attribute{String: &v} }

// IntAttribute builds an integer attribute value.
func IntAttribute(v int64) Attribute { return Attribute{Int: &v} }

// BoolAttribute builds a boolean attribute value.
func BoolAttribute(v bool) Attribute { return Attribute{Bool: &v} }

// UnmarshalJSON implements json.Unmarshaler.
func (a *Attribute) UnmarshalJSON(data []byte) error {
	*a = Attribute{}
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("decode string attribute: %w", err)
		}
		a.String = &s
	case string(data) == "true" || string(data) == "false":
		b := string(data) == "true"
		a.Bool = &b
	default:
		i, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			a.invalid = string(data)
			return nil
		}
		a.Int = &i
	}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (a Attribute) MarshalJSON() ([]byte, error) {
	switch {
	case a.String != nil:
		return json.Marshal(*a.String)
	case a.Int != nil:
		return json.Marshal(*a.Int)
	case a.Bool != nil:
		return json.Marshal(*a.Bool)
	}
	return nil, fmt.Errorf("attribute has no value (invalid: %q)", a.invalid)
}

func (a Attribute) numValues() int {
	n := 0
	for _, set := range []bool{a.String != nil, a.Int != nil, a.Bool != nil} {
		if set {
			n++
		}
	}
	return n
}
