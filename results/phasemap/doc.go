// Package phasemap holds what a metastability map is: the outcome after one trigger over a grid
// of two or three parameters, each cell with its probability of sticking, Wilson interval and
// median recovery time (Map, Cell, NewCell), written to and read from a result folder's
// map.json and map.csv (Write, Read, WriteCells) under the folder discipline of package
// results; and the pure analyses the views call: where P(stuck) crosses 1/2 along an axis
// (Boundary, BoundaryAxis) and the map in one paragraph (Summary).
package phasemap
