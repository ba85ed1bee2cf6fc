module github.com/overloadsim/overloadsim/lab

go 1.26

require (
	github.com/overloadsim/overloadsim v0.0.0
	go.mongodb.org/mongo-driver/v2 v2.10.0
	gonum.org/v1/gonum v0.17.0
)

replace github.com/overloadsim/overloadsim => ../
