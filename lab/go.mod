module github.com/overloadsim/overloadsim/lab

go 1.26

require github.com/overloadsim/overloadsim v0.0.0

replace github.com/overloadsim/overloadsim => ../
