from ultralytics import RTDETR

model = RTDETR("models/rtdetr/rtdetr-x.pt")

model.train(data="datasets/ROADLAB_TrafficSignalClassification/roadlabTSC.yaml", epochs=50, name="RTDETRx_RoadlabSignal_50", device=[0,1])
