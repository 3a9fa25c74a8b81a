> #SBATCH --gres=gpu:8         
> #SBATCH --time=00:30:00                   
> #SBATCH --nodes=1
> #SBATCH --cpus-per-task=8
> #SBATCH --ntasks-per-node=8
> 
> export MASTER_PORT=$ I set this parameter
> export WORLD_SIZE=$  I set this parameter
> export MASTER_ADDR=$  I set this parameter
> 
> srun python ./deepy.py evaluate.py ./configs/20B.yml --eval_tasks piqa
