if __name__ == '__main__':
    from lightning.fabric import Fabric

    fabric = Fabric(
            accelerator="gpu",
            devices=2,
            strategy="ddp",
            precision="16-mixed"
        )

    main()
