module github.com/overloadsim/overloadsim/lab

go 1.26

require github.com/overloadsim/overloadsim v0.0.0

require gonum.org/v1/gonum v0.17.0

replace github.com/overloadsim/overloadsim => ../
