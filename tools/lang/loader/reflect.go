package loader

import "reflect"

func reflectValue(ptr any) reflect.Value { return reflect.ValueOf(ptr).Elem() }
