package build

import "strings"

// conversionsEdits keeps every conversion of DeviceClass memory-safe.
//
// conversion-gen casts a struct through unsafe.Pointer when both sides have
// the same memory layout. Internal and v1 DeviceClassSpec both get the new
// field at the same position, so the generated internal<->v1 casts stay valid
// and already carry the field both ways: pkg/apis/resource/v1 needs no edit
// (regenerating it would emit the same code). v1beta1 and v1beta2 have no such
// field, so every cast between their DeviceClassSpec, DeviceClass or
// []DeviceClass and the grown type is replaced by field-by-field conversion, as
// conversion-gen writes it for types that differ. The field is lost through
// those versions, which is what the suite documents.
func conversionsEdits() Group {
	var edits []Edit
	for _, v := range []string{"v1beta1", "v1beta2"} {
		// kube-apiserver: internal <-> v1beta1/v1beta2 (the grown side is the internal type).
		edits = append(edits, deviceClassCastEdits(Kubernetes, "pkg/apis/resource/"+v+"/zz_generated.conversion.go",
			"resource", "resource", "resource"+v, v)...)
		// k8s.io/dynamic-resource-allocation/api/<v>: v1 <-> v1beta1/v1beta2, used by the DRA client's fallback to older APIs; v1 is the grown side.
		edits = append(edits, deviceClassCastEdits(DRA, "api/"+v+"/zz_generated.conversion.go",
			"v1", "v1", "resource"+v, v)...)
	}
	return Group{Name: "conversions", Edits: edits}
}

// deviceClassCastEdits replaces the four DeviceClass casts in one generated
// conversion file. grown is the package alias of the type that has the new
// field and grownFn its name in function names; peer and peerFn the same for
// the version without it.
func deviceClassCastEdits(m Module, file, grown, grownFn, peer, peerFn string) []Edit {
	r := strings.NewReplacer("GROWNFN", grownFn, "GROWN", grown, "PEERFN", peerFn, "PEER", peer)
	return []Edit{
		// Spec, peer -> grown: copy the shared fields; the new field has no source and stays unset.
		replace(m, file, r.Replace("\t*out = *(*GROWN.DeviceClassSpec)(unsafe.Pointer(in))\n"), r.Replace(
			`	out.Selectors = *(*[]GROWN.DeviceSelector)(unsafe.Pointer(&in.Selectors))
	out.Config = *(*[]GROWN.DeviceClassConfiguration)(unsafe.Pointer(&in.Config))
	out.ExtendedResourceName = (*string)(unsafe.Pointer(in.ExtendedResourceName))
`)).in(r.Replace("func autoConvert_PEERFN_DeviceClassSpec_To_GROWNFN_DeviceClassSpec(")),

		// Spec, grown -> peer: the new field does not exist in the peer and is dropped.
		replace(m, file, r.Replace("\t*out = *(*PEER.DeviceClassSpec)(unsafe.Pointer(in))\n"), r.Replace(
			`	out.Selectors = *(*[]PEER.DeviceSelector)(unsafe.Pointer(&in.Selectors))
	out.Config = *(*[]PEER.DeviceClassConfiguration)(unsafe.Pointer(&in.Config))
	out.ExtendedResourceName = (*string)(unsafe.Pointer(in.ExtendedResourceName))
	// WARNING: in.ExtendedResourceCapacityRequests requires manual conversion: does not exist in peer-type
`)).in(r.Replace("func autoConvert_GROWNFN_DeviceClassSpec_To_PEERFN_DeviceClassSpec(")),

		// List items, both ways: a slice cast would read each element at
		// the other type's size.
		listItemsEdit(m, file, r, "PEER", "GROWN"),
		listItemsEdit(m, file, r, "GROWN", "PEER"),
	}
}

// listItemsEdit converts a DeviceClassList's items one by one, from the
// side named from to the side named to ("PEER" or "GROWN", as r names them).
func listItemsEdit(m Module, file string, r *strings.Replacer, from, to string) Edit {
	sides := strings.NewReplacer("FROM", from, "TO", to)
	text := func(s string) string { return r.Replace(sides.Replace(s)) }
	return replace(m, file, text("\tout.Items = *(*[]TO.DeviceClass)(unsafe.Pointer(&in.Items))\n"), text(
		`	if in.Items != nil {
		in, out := &in.Items, &out.Items
		*out = make([]TO.DeviceClass, len(*in))
		for i := range *in {
			if err := Convert_FROMFN_DeviceClass_To_TOFN_DeviceClass(&(*in)[i], &(*out)[i], s); err != nil {
				return err
			}
		}
	} else {
		out.Items = nil
	}
`)).in(text("func autoConvert_FROMFN_DeviceClassList_To_TOFN_DeviceClassList("))
}
